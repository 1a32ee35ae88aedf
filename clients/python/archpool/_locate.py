"""Where the ``archpool`` launcher is: the one lookup every part of the client uses."""

import os
import shutil
from pathlib import Path
from typing import List, Optional

from ._errors import ArchpoolNotFoundError

__all__ = ["find_archpool"]

#: The distribution a platform wheel carries inside the package (absent from a pure-Python install).
_BUNDLED = Path(__file__).resolve().parent / "_dist" / "bin" / "archpool"


def find_archpool(explicit: Optional[str] = None) -> str:
    """The ``archpool`` launcher to run, as an absolute path.

    Looked for, in order: ``explicit`` (a path, or a name looked up on the PATH), ``$ARCHPOOL_HOME/bin/archpool``,
    the distribution bundled in this package (``archpool/_dist/bin/archpool``, in a platform wheel), and
    ``archpool`` on the PATH. The first that is an executable file wins; an ``explicit`` or ``ARCHPOOL_HOME``
    that names nothing usable is an error at once rather than a silent fall-through to another archpool.

    :raises ArchpoolNotFoundError: naming every place looked, when none holds an executable launcher.
    """
    if explicit is not None:
        given = os.fspath(explicit)
        found = _executable(given) or (shutil.which(given) if os.sep not in given else None)
        if found is None:
            raise ArchpoolNotFoundError(
                f"archpool={given!r} is not an executable file"
                + ("" if os.sep in given else " nor a program on the PATH")
                + "; pass the distribution's bin/archpool (e.g. orchestrator/target/archpool/bin/archpool after"
                  " 'mvn package'), or leave it out to use $ARCHPOOL_HOME, the bundled one or the PATH",
                (given,))
        return found
    searched: List[str] = []
    home = os.environ.get("ARCHPOOL_HOME")
    if home:
        candidate = os.path.join(home, "bin", "archpool")
        found = _executable(candidate)
        if found is None:
            raise ArchpoolNotFoundError(
                f"ARCHPOOL_HOME={home!r} holds no executable bin/archpool; point it at an archpool distribution"
                " (the folder with bin/ and lib/), or unset it", (candidate,))
        return found
    searched.append("$ARCHPOOL_HOME/bin/archpool (ARCHPOOL_HOME is not set)")
    found = _executable(str(_BUNDLED))
    if found is not None:
        return found
    searched.append(f"{_BUNDLED} (the distribution a platform wheel bundles)")
    found = shutil.which("archpool")
    if found is not None:
        return os.path.abspath(found)
    searched.append("archpool on the PATH")
    raise ArchpoolNotFoundError(
        "archpool was not found; looked at " + "; ".join(searched)
        + ". Install a platform wheel that bundles it, set ARCHPOOL_HOME to a distribution, put its bin/ on"
          " the PATH, or pass archpool=PATH", tuple(searched))


def _executable(path: str) -> Optional[str]:
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return os.path.abspath(path)
    return None
