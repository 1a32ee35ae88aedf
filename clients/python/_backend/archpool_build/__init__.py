"""The PEP 517 build backend of the archpool Python client, standard library only, so that
`pip install ./clients/python` needs no package index.

build_wheel makes the pure wheel (py3-none-any). With the setting dist=DIST (`pip wheel --config-settings
dist=DIST`, or scripts/build-wheel.sh) it makes the platform wheel instead: the same package, plus the archpool
distribution DIST with its bundled Java runtime as archpool/_dist, tagged manylinux_X_Y for the glibc the
runtime needs (docs/python-wheel.md). build_editable (`pip install -e`) installs a finder of the package in
this folder instead of a copy. SOURCE_DATE_EPOCH, when set, dates every entry (reproducible builds).
"""

import gzip
import io
import os
import sys
import tarfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ._bundle import Bundle
from ._project import BuildError, Project
from ._wheel import WheelWriter, date_time

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel"]

_ROOT = Path(__file__).resolve().parent.parent.parent
_SETTINGS = ("dist",)
#: what an sdist carries besides the package and the readme
_SDIST_EXTRA = ("pyproject.toml", "_backend", "tests", "examples")
_NOT_SOURCE = ("__pycache__", ".pytest_cache")


def get_requires_for_build_wheel(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Mapping[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    try:
        settings = _settings(config_settings)
        project = Project.load(_ROOT)
        if "dist" not in settings:
            return _write_wheel(project, Path(wheel_directory), ("any",), _package_and_bundle(project, None))
        bundle = Bundle.load(Path(settings["dist"]))
        name = _write_wheel(project, Path(wheel_directory), bundle.tag.tags, _package_and_bundle(project, bundle),
                            purelib=False)
        print(f"archpool build backend: {name}: {bundle.tag.describe()}", file=sys.stderr)
        return name
    except BuildError as e:
        raise SystemExit(f"archpool build backend: {e}") from None


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    try:
        _settings(config_settings, allowed=())
        project = Project.load(_ROOT)
        return _write_sdist(project, Path(sdist_directory))
    except BuildError as e:
        raise SystemExit(f"archpool build backend: {e}") from None


def build_editable(wheel_directory: str, config_settings: Optional[Mapping[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose .pth file makes `import archpool` load this source folder's package (and nothing
    else of clients/python, so that its tests/ and examples/ do not become importable names)."""
    try:
        _settings(config_settings, allowed=())
        project = Project.load(_ROOT)
        list(project.package_files())  # refuses a folder without the package
        finder = f"_{project.distribution}_editable"

        def payload(wheel: WheelWriter) -> None:
            wheel.add_bytes(f"{finder}.py", _EDITABLE_FINDER.format(
                package=project.distribution, source=str(project.package)).encode("utf-8"))
            wheel.add_bytes(f"__editable__.{project.distribution}-{project.version}.pth",
                            f"import {finder}; {finder}.install()\n".encode("utf-8"))
        return _write_wheel(project, Path(wheel_directory), ("any",), payload)
    except BuildError as e:
        raise SystemExit(f"archpool build backend: {e}") from None


def get_requires_for_build_editable(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    return []


_EDITABLE_FINDER = '''"""Installed by `pip install -e`: `import {package}` loads the package from {source}."""

import importlib.abc
import importlib.util
import os
import sys

_SOURCE = {source!r}


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != {package!r}:
            return None
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(_SOURCE, "__init__.py"), submodule_search_locations=[_SOURCE])


def install():
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
'''


def _write_wheel(project: Project, directory: Path, tags: Sequence[str],
                 payload: Callable[[WheelWriter], None], purelib: bool = True) -> str:
    name = f"{project.distribution}-{project.version}-py3-none-{'.'.join(tags)}.whl"
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / (name + ".part")
    wheel = WheelWriter(partial, project.dist_info, date_time(_epoch()))
    try:
        payload(wheel)
        wheel.add_bytes(f"{project.dist_info}/METADATA", project.metadata().encode("utf-8"))
        entry_points = project.entry_points()
        if entry_points is not None:
            wheel.add_bytes(f"{project.dist_info}/entry_points.txt", entry_points.encode("utf-8"))
        wheel.add_bytes(f"{project.dist_info}/WHEEL", "".join(
            ["Wheel-Version: 1.0\n", "Generator: archpool_build\n",
             f"Root-Is-Purelib: {'true' if purelib else 'false'}\n"]
            + [f"Tag: py3-none-{tag}\n" for tag in tags]).encode("ascii"))
        wheel.close()
    except BaseException:
        wheel.abort()
        partial.unlink()
        raise
    os.replace(partial, directory / name)
    return name


def _package_and_bundle(project: Project, bundle: Optional[Bundle]) -> Callable[[WheelWriter], None]:
    def payload(wheel: WheelWriter) -> None:
        for path in project.package_files():
            wheel.add_file(path.relative_to(project.root).as_posix(), path)
        if bundle is not None:
            for relative, path in bundle.files:
                wheel.add_file(f"{project.distribution}/_dist/{relative}", path)
    return payload


def _write_sdist(project: Project, directory: Path) -> str:
    base = f"{project.distribution}-{project.version}"
    epoch = _epoch()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{base}.tar.gz"
    partial = directory / f"{base}.tar.gz.part"
    sources = [project.root / name for name in _SDIST_EXTRA if (project.root / name).exists()]
    sources.append(project.package)
    if project.readme is not None:
        sources.append(project.readme)
    try:
        with partial.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=epoch, filename="") as zipped, \
                tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            pkg_info = project.metadata().encode("utf-8")
            _add(tar, f"{base}/PKG-INFO", io.BytesIO(pkg_info), len(pkg_info), False, epoch)
            for path in sorted(_source_files(sources)):
                with path.open("rb") as data:
                    _add(tar, f"{base}/{path.relative_to(project.root).as_posix()}", data, path.stat().st_size,
                         bool(path.stat().st_mode & 0o111), epoch)
    except BaseException:
        partial.unlink()
        raise
    os.replace(partial, target)
    return target.name


def _source_files(sources: List[Path]) -> List[Path]:
    files: List[Path] = []
    for source in sources:
        if source.is_file():
            files.append(source)
            continue
        for folder, folders, names in os.walk(source):
            folders[:] = [f for f in folders if f not in _NOT_SOURCE and Path(folder, f) != source / "_dist"]
            files += [Path(folder, name) for name in names if not name.endswith(".pyc")]
    return files


def _add(tar: tarfile.TarFile, name: str, data: Any, size: int, executable: bool, epoch: int) -> None:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = epoch
    info.mode = 0o755 if executable else 0o644
    tar.addfile(info, data)


def _settings(config_settings: Optional[Mapping[str, Any]], allowed: tuple = _SETTINGS) -> Dict[str, str]:
    settings: Dict[str, str] = {}
    for key, value in (config_settings or {}).items():
        if key not in allowed:
            raise BuildError(f"unknown setting {key!r}; "
                             + (f"the settings are {', '.join(allowed)}" if allowed else "an sdist takes none"))
        if isinstance(value, list):
            if len(value) != 1:
                raise BuildError(f"setting {key!r} is given {len(value)} times ({value}); give it once")
            value = value[0]
        settings[key] = str(value)
    return settings


def _epoch() -> int:
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None:
        return 315532800  # 1980-01-01, the earliest a zip can date: the same bytes for the same sources
    try:
        return int(value)
    except ValueError:
        raise BuildError(f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds since 1970; unset it or give one")
