"""The project as pyproject.toml's [project] table describes it (PEP 621), and the metadata files a wheel and an
sdist carry for it (core metadata 2.1, entry_points.txt)."""

import re
from pathlib import Path
from typing import Dict, Iterator, NamedTuple, Optional, Tuple

from ._toml import TomlError, loads

__all__ = ["BuildError", "Project"]

# PEP 440's public version, as packaging.version writes it (without local versions: an index refuses those)
_VERSION = re.compile(r"([0-9]+!)?[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?")
_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_ENTRY_POINT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_.]*")
#: what a package folder holds that is not the package: bytecode caches, and the distribution a platform wheel adds
_NOT_PACKAGE = ("__pycache__", "_dist")
_KNOWN_KEYS = {"name", "version", "description", "readme", "requires-python", "classifiers", "scripts"}


class BuildError(Exception):
    """Something in the project or in the build's settings that the build cannot go on with; the message says
    what and how to fix it."""


class Project(NamedTuple):
    root: Path
    name: str
    version: str
    summary: str
    readme: Optional[Path]
    requires_python: Optional[str]
    classifiers: Tuple[str, ...]
    scripts: Tuple[Tuple[str, str], ...]

    @classmethod
    def load(cls, root: Path) -> "Project":
        pyproject = root / "pyproject.toml"
        try:
            table = loads(pyproject.read_text(encoding="utf-8"), str(pyproject)).get("project")
        except (OSError, TomlError) as e:
            raise BuildError(str(e)) from e
        if not isinstance(table, dict):
            raise BuildError(f"{pyproject} has no [project] table; it names the project (PEP 621)")
        unknown = sorted(set(table) - _KNOWN_KEYS)
        if unknown:
            raise BuildError(f"{pyproject}: [project] keys {unknown} are not read by the archpool build backend"
                             f" (it reads {sorted(_KNOWN_KEYS)}); remove them or teach _backend/archpool_build")
        name = _string(table, "name", pyproject)
        version = _string(table, "version", pyproject)
        if not _NAME.fullmatch(name):
            raise BuildError(f"{pyproject}: name {name!r} is not a valid project name (letters, digits, '.', '_', '-')")
        if not _VERSION.fullmatch(version):
            raise BuildError(f"{pyproject}: version {version!r} is not a PEP 440 version such as 0.1.0 or 0.2.0.dev0")
        readme = table.get("readme")
        if readme is not None and not isinstance(readme, str):
            raise BuildError(f"{pyproject}: readme must be the name of a Markdown file, e.g. \"README.md\"")
        readme_path = None if readme is None else root / readme
        if readme_path is not None and not readme_path.is_file():
            raise BuildError(f"{pyproject} names readme {readme!r}, which is not a file in {root}")
        scripts = table.get("scripts", {})
        for script, target in scripts.items():
            if not isinstance(target, str) or not _ENTRY_POINT.fullmatch(target):
                raise BuildError(f"{pyproject}: [project.scripts] {script} = {target!r} is not 'module:function'")
        classifiers = table.get("classifiers", [])
        if not isinstance(classifiers, list) or not all(isinstance(c, str) for c in classifiers):
            raise BuildError(f"{pyproject}: classifiers must be an array of strings")
        requires_python = table.get("requires-python")
        return cls(root, name, version, _string(table, "description", pyproject, ""), readme_path,
                   None if requires_python is None else str(requires_python), tuple(classifiers),
                   tuple(sorted(scripts.items())))

    @property
    def distribution(self) -> str:
        """The name as wheel and sdist file names spell it (PEP 427/625: runs of -_. become one _)."""
        return re.sub(r"[-_.]+", "_", self.name).lower()

    @property
    def dist_info(self) -> str:
        return f"{self.distribution}-{self.version}.dist-info"

    @property
    def package(self) -> Path:
        """The import package: the folder named like the project."""
        return self.root / self.distribution

    def package_files(self) -> Iterator[Path]:
        """The package's files, in a stable order: everything in its folder but bytecode and a bundled _dist."""
        if not (self.package / "__init__.py").is_file():
            raise BuildError(f"{self.package} holds no __init__.py: the package '{self.distribution}' is missing")
        yield from _files(self.package)

    def metadata(self) -> str:
        lines = ["Metadata-Version: 2.1", f"Name: {self.name}", f"Version: {self.version}"]
        if self.summary:
            lines.append(f"Summary: {_one_line(self.summary)}")
        if self.requires_python:
            lines.append(f"Requires-Python: {_one_line(self.requires_python)}")
        lines += [f"Classifier: {_one_line(c)}" for c in self.classifiers]
        body = ""
        if self.readme is not None:
            lines.append("Description-Content-Type: text/markdown" if self.readme.suffix.lower() == ".md"
                         else "Description-Content-Type: text/plain")
            body = "\n" + self.readme.read_text(encoding="utf-8")
        return "\n".join(lines) + "\n" + body

    def entry_points(self) -> Optional[str]:
        if not self.scripts:
            return None
        return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in self.scripts)


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.iterdir()):
        if path.name in _NOT_PACKAGE or path.suffix == ".pyc":
            continue
        if path.is_dir():
            yield from _files(path)
        else:
            yield path


def _string(table: Dict[str, object], key: str, pyproject: Path, default: Optional[str] = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise BuildError(f"{pyproject}: [project] {key} must be a string" + ("" if key in table else ", and is missing"))
    return value


def _one_line(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise BuildError(f"metadata value {value!r} spans lines; pyproject.toml must give it on one line")
    return value
