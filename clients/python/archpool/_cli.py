"""The ``archpool`` command a pip install puts on the PATH: it becomes the archpool launcher that
:func:`archpool.find_archpool` finds (in a platform wheel, the distribution bundled in the package) with the
same arguments, so that signals, the exit status and the terminal are the launcher's own."""

import os
import signal
import sys
from typing import NoReturn, Optional, Sequence

from ._errors import ArchpoolNotFoundError
from ._locate import find_archpool

__all__ = ["main"]

#: the launcher's exit status for "no Java runtime found"; the same here for "no archpool found"
_NOT_FOUND = 70


def main(argv: Optional[Sequence[str]] = None) -> NoReturn:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        launcher = find_archpool()
    except ArchpoolNotFoundError as e:
        _fail(str(e))
    if _is_this_command(launcher):
        # a pure-Python install finds its own console script on the PATH; running it would only find it again
        _fail(f"archpool on the PATH is {launcher}, this Python package's own command, and no archpool"
              " distribution was found: install the platform wheel, which bundles it, or set ARCHPOOL_HOME to a"
              " distribution (the folder with bin/ and lib/)")
    # Python starts with SIGPIPE and SIGXFSZ ignored, and an exec keeps what is ignored: archpool and the jobs it
    # runs get the defaults, as from a shell
    for name in ("SIGPIPE", "SIGXFSZ"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execv(launcher, [launcher, *args])
    except OSError as e:
        _fail(f"cannot run {launcher}: {e.strerror}; reinstall archpool or set ARCHPOOL_HOME to a working"
              " distribution")


def _is_this_command(launcher: str) -> bool:
    own = sys.argv[0]
    try:
        return bool(own) and os.path.exists(own) and os.path.samefile(own, launcher)
    except OSError:
        return False


def _fail(message: str) -> NoReturn:
    print(f"archpool: {message}", file=sys.stderr)
    sys.exit(_NOT_FOUND)
