"""The Java distribution a platform wheel carries as archpool/_dist (bin/, lib/, the jlink'd runtime/), and the
platform tag it earns: manylinux_X_Y for the highest glibc symbol version any of its ELF files requires."""

import os
from pathlib import Path
from typing import Dict, List, NamedTuple, Set, Tuple

from ._elf import ElfError, glibc_version, is_elf, read_needs
from ._project import BuildError

__all__ = ["Bundle", "PlatformTag"]

#: the libraries of glibc itself, whose symbol versions make the tag (PEP 600)
_GLIBC_LIBRARIES = ("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
                    "libresolv.so.2", "libnsl.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1")
#: the older names of three manylinux_2_Y tags, which installers before pip 20.3 know only by these
_LEGACY = {(2, 5): "manylinux1", (2, 12): "manylinux2010", (2, 17): "manylinux2014"}


class PlatformTag(NamedTuple):
    glibc: Tuple[int, int]
    machine: str
    #: the ELF files (relative to the distribution) that require that glibc version
    requiring: Tuple[str, ...]
    #: libraries neither glibc's nor the distribution's own -> the symbol versions required of them
    system_libraries: Dict[str, Tuple[str, ...]]

    @property
    def tags(self) -> Tuple[str, ...]:
        major, minor = self.glibc
        tags = [f"manylinux_{major}_{minor}_{self.machine}"]
        if self.glibc in _LEGACY:
            tags.append(f"{_LEGACY[self.glibc]}_{self.machine}")
        return tuple(tags)

    def describe(self) -> str:
        major, minor = self.glibc
        shown = ", ".join(self.requiring[:3]) + (f" and {len(self.requiring) - 3} more" if len(self.requiring) > 3 else "")
        text = f"{'.'.join(self.tags)}: the runtime needs glibc {major}.{minor} (GLIBC_{major}.{minor}: {shown})"
        if self.system_libraries:
            text += "; besides glibc it links " + ", ".join(
                f"{lib} ({' '.join(sorted(versions)) or 'no versioned symbols'})"
                for lib, versions in sorted(self.system_libraries.items()))
        return text


class Bundle(NamedTuple):
    root: Path
    #: (path inside the distribution, file to read), in a stable order
    files: Tuple[Tuple[str, Path], ...]
    tag: PlatformTag

    @classmethod
    def load(cls, dist: Path) -> "Bundle":
        root = dist.resolve()
        launcher = root / "bin" / "archpool"
        if not (launcher.is_file() and os.access(launcher, os.X_OK)):
            raise BuildError(f"{dist} holds no executable bin/archpool, so it is not an archpool distribution;"
                             " build one with 'mvn -B -q package -DskipTests' (orchestrator/target/archpool)")
        if not os.access(root / "runtime" / "bin" / "java", os.X_OK):
            raise BuildError(f"{dist} has no bundled Java runtime (runtime/bin/java), and a platform wheel without"
                             f" one would need Java where it is installed; add it with scripts/bundle-runtime.sh {dist}")
        files = tuple(_files(root, root))
        return cls(root, files, _platform_tag(files))


def _files(root: Path, folder: Path) -> List[Tuple[str, Path]]:
    found: List[Tuple[str, Path]] = []
    for path in sorted(folder.iterdir()):
        relative = path.relative_to(root).as_posix()
        if path.is_symlink():
            # a wheel holds no links: the file linked to goes in (jlink links legal/*/LICENSE to java.base's)
            target = path.resolve()
            if root not in target.parents or not target.is_file():
                raise BuildError(f"{path} links to {os.readlink(path)}, which is not a file inside {root}; a wheel"
                                 " can only carry the distribution's own files")
            found.append((relative, target))
        elif path.is_dir():
            found += _files(root, path)
        elif path.parent == root / "lib" and path.suffix == ".jsa":
            # archpool's CDS archives name the path and modification time of every jar they were made from, and an
            # installer writes the jars elsewhere and anew: the JVM would refuse them (docs/python-wheel.md)
            continue
        else:
            found.append((relative, path))
    return found


def _platform_tag(files: Tuple[Tuple[str, Path], ...]) -> PlatformTag:
    own = {Path(relative).name for relative, _ in files}
    machines: Set[str] = set()
    highest = (0, 0)
    requiring: List[str] = []
    system: Dict[str, Set[str]] = {}
    for relative, path in files:
        if not is_elf(path):
            continue
        try:
            needs = read_needs(path)
        except ElfError as e:
            raise BuildError(f"cannot read what {relative} needs: {e}") from e
        machines.add(needs.machine)
        needed = (glibc_version(v) for lib, versions in needs.versions.items() if lib in _GLIBC_LIBRARIES
                  for v in versions)
        mine = max((v for v in needed if v is not None), default=(0, 0))
        if "GLIBC_PRIVATE" in {v for versions in needs.versions.values() for v in versions}:
            raise BuildError(f"{relative} uses glibc's private symbols (GLIBC_PRIVATE), which tie it to the very"
                             " glibc it was built with: bundle a runtime that does not")
        if mine > highest:
            highest, requiring = mine, []
        if mine == highest:
            requiring.append(relative)
        for lib in needs.libraries:
            if lib not in _GLIBC_LIBRARIES and lib not in own:
                system.setdefault(lib, set()).update(needs.versions.get(lib, ()))
    if not machines:
        raise BuildError("the distribution holds no ELF files, so no platform tag can be read from it")
    if len(machines) > 1:
        raise BuildError(f"the distribution's ELF files are for several machines ({sorted(machines)}); bundle one"
                         " runtime")
    if highest == (0, 0):
        raise BuildError("the distribution's ELF files require no glibc symbol version, so no manylinux tag can be"
                         " read from them")
    return PlatformTag(highest, machines.pop(), tuple(requiring),
                       {lib: tuple(sorted(versions)) for lib, versions in system.items()})
