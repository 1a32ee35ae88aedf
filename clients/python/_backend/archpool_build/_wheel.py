"""A wheel file being written (PEP 427): entries in the order given, each hashed into RECORD as it streams in,
with its file mode in the zip's external attributes (installers make a file executable from those bits)."""

import base64
import hashlib
import stat
import time
import zipfile
from pathlib import Path
from typing import List, Tuple

__all__ = ["WheelWriter", "date_time"]

_CHUNK = 1 << 20


class WheelWriter:
    def __init__(self, path: Path, dist_info: str, date_time: Tuple[int, int, int, int, int, int]) -> None:
        self._zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self._dist_info = dist_info
        self._date_time = date_time
        self._records: List[str] = []

    def add_file(self, arcname: str, source: Path) -> None:
        """source's content (a symlink's target's) as arcname, executable if any of its execute bits is set."""
        executable = bool(source.stat().st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
        digest = hashlib.sha256()
        size = 0
        info = self._info(arcname, executable)
        info.file_size = source.stat().st_size
        with source.open("rb") as src, self._zip.open(info, "w") as out:
            for chunk in iter(lambda: src.read(_CHUNK), b""):
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
        self._record(arcname, digest, size)

    def add_bytes(self, arcname: str, data: bytes) -> None:
        self._zip.writestr(self._info(arcname, False), data)
        self._record(arcname, hashlib.sha256(data), len(data))

    def close(self) -> None:
        """Writes RECORD (which lists itself without a hash) and closes the file."""
        record = f"{self._dist_info}/RECORD"
        self._records.append(f"{record},,")
        self._zip.writestr(self._info(record, False), "".join(line + "\n" for line in self._records))
        self._zip.close()

    def abort(self) -> None:
        self._zip.close()

    def _info(self, arcname: str, executable: bool) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(arcname, self._date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
        return info

    def _record(self, arcname: str, digest: "hashlib._Hash", size: int) -> None:
        encoded = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")
        if "," in arcname:
            arcname = '"' + arcname.replace('"', '""') + '"'
        self._records.append(f"{arcname},sha256={encoded},{size}")


def date_time(epoch: int) -> Tuple[int, int, int, int, int, int]:
    """The zip timestamp of an epoch: zip cannot say anything before 1980."""
    return time.gmtime(max(epoch, 315532800))[:6]
