"""The fixtures of the packaging tests (support.py)."""

from support import distribution, make_venv, path_without_java  # noqa: F401  (fixtures, found by name)
