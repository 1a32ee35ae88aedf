"""``python -m archpool ARGS``: the same as the ``archpool`` command."""

from ._cli import main

if __name__ == "__main__":
    main()
