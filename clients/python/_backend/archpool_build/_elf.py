"""What an ELF file needs from the system it runs on: the libraries it links (DT_NEEDED) and the symbol versions
it requires of each (.gnu.version_r, the table `readelf -V` prints as "Version needs"). The platform tag of a
wheel is the highest glibc version any of its ELF files requires."""

import re
import struct
from pathlib import Path
from typing import Dict, NamedTuple, Optional, Tuple

__all__ = ["ElfError", "ElfNeeds", "is_elf", "read_needs", "glibc_version"]

_MAGIC = b"\x7fELF"
_MACHINES = {62: "x86_64", 183: "aarch64"}
_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NEEDED = 1
_GLIBC = re.compile(r"GLIBC_([0-9]+)\.([0-9]+)(?:\.[0-9]+)?")


class ElfError(ValueError):
    """A file that starts like ELF but is not one this reader understands."""


class ElfNeeds(NamedTuple):
    machine: str
    libraries: Tuple[str, ...]
    #: library (as linked) -> the symbol versions required of it, e.g. "libc.so.6" -> ("GLIBC_2.2.5", ...)
    versions: Dict[str, Tuple[str, ...]]


def is_elf(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(4) == _MAGIC


def glibc_version(version: str) -> Optional[Tuple[int, int]]:
    """(2, 34) for "GLIBC_2.34", None for versions of other libraries (GLIBCXX_3.4, ZLIB_1.2.0, ...)."""
    match = _GLIBC.fullmatch(version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def read_needs(path: Path) -> ElfNeeds:
    data = path.read_bytes()
    if data[:4] != _MAGIC:
        raise ElfError(f"{path} is not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError(f"{path} is not a 64-bit little-endian ELF file (class {data[4]}, data {data[5]})")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine not in _MACHINES:
        raise ElfError(f"{path} is for ELF machine {machine}, not one of {sorted(_MACHINES.values())}")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shoff == 0 or shnum == 0:
        raise ElfError(f"{path} has no section headers, so its needs cannot be read")
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(table: int, offset: int) -> str:
        start = sections[table][4] + offset
        return data[start:data.index(b"\0", start)].decode("ascii")

    libraries = []
    versions: Dict[str, Tuple[str, ...]] = {}
    for _, kind, _, _, offset, size, link, info, _, entsize in sections:
        if kind == _SHT_DYNAMIC:
            for at in range(offset, offset + size, entsize or 16):
                tag, value = struct.unpack_from("<qQ", data, at)
                if tag == _DT_NEEDED:
                    libraries.append(string(link, value))
        elif kind == _SHT_GNU_VERNEED:
            at = offset
            for _ in range(info):
                _, count, file, aux, following = struct.unpack_from("<HHIII", data, at)
                names = []
                aux_at = at + aux
                for _ in range(count):
                    _, _, _, name, aux_next = struct.unpack_from("<IHHII", data, aux_at)
                    names.append(string(link, name))
                    aux_at += aux_next
                versions[string(link, file)] = tuple(names)
                at += following
    return ElfNeeds(_MACHINES[machine], tuple(libraries), versions)
