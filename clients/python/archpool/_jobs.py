"""Jobs as ``submit`` sends them: one manifest entry each (README, "The manifest"), built from Python values.

Only the Python side of each value is checked here (a string where a list belongs, an object JSON cannot hold);
what the job means (a folder that does not exist, a forbidden define) is checked once, by ``serve``, whose
``invalid-job`` message the job's future then raises.
"""

import datetime
import os
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

__all__ = ["PathArg", "Duration", "cmake_job", "command_job", "duration"]

PathArg = Union[str, "os.PathLike[str]"]
Duration = Union[str, int, float, datetime.timedelta]

_ID_FORBIDDEN = re.compile(r"[^A-Za-z0-9._-]")
_MAX_ID = 128


def cmake_job(source_dir: PathArg, build_dir: Optional[PathArg] = None, defines: Optional[Mapping[str, Any]] = None,
              id: Optional[str] = None, generator: Optional[str] = None, build_type: Optional[str] = None,
              configure_args: Optional[Sequence[str]] = None, build_args: Optional[Sequence[str]] = None,
              targets: Optional[Sequence[str]] = None, env: Optional[Mapping[str, str]] = None,
              timeout: Optional[Duration] = None, artifacts: Optional[Sequence[PathArg]] = None, *,
              platforms: Optional[Sequence[str]] = None, archs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """``platforms`` and ``archs``: as for :func:`command_job`."""
    source = _path(source_dir, "source_dir")
    job: Dict[str, Any] = {"id": _id(id, source), "kind": "cmake", "sourceDir": source}
    _put(job, "buildDir", None if build_dir is None else _path(build_dir, "build_dir"))
    _put(job, "generator", _optional_str(generator, "generator"))
    _put(job, "buildType", _optional_str(build_type, "build_type"))
    _put(job, "defines", None if defines is None else _defines(defines))
    _put(job, "configureArgs", _strings(configure_args, "configure_args"))
    _put(job, "buildArgs", _strings(build_args, "build_args"))
    _put(job, "targets", _strings(targets, "targets"))
    _common(job, env, timeout, artifacts, platforms, archs)
    return job


def command_job(argv: Sequence[PathArg], cwd: Optional[PathArg] = None, env: Optional[Mapping[str, str]] = None,
                artifacts: Optional[Sequence[PathArg]] = None, id: Optional[str] = None,
                timeout: Optional[Duration] = None, inputs: Optional[Sequence[PathArg]] = None, *,
                platforms: Optional[Sequence[str]] = None, archs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """``inputs``: globs of the files the job reads (relative to its ``cwd``, or absolute), which the build cache
    hashes into the job's key; None sends none, and the job is not cached (``[]`` declares that it reads no file).
    A CMake job needs none: its whole ``sourceDir`` is its input.

    ``platforms`` (``["cuda"]``, ``["hip"]``): the platforms the job is limited to; with a ``serve`` of several
    targets it must name exactly one. ``archs``: the architectures the job supports, CUDA exactly (``"90a"``) or as
    ranges (``">=80"``, ``">80"``, ``"<=90"``, ``"<90"``) and HIP target ids (``"gfx942"``): the job is built for the
    target's architectures it supports, and is ``skipped`` (not built, not a failure) when there are none. What they
    mean is checked by ``serve`` (``invalid-job``); None sends neither."""
    args = _strings(argv, "argv")
    if not args:
        raise ValueError("argv is empty; give the program and its arguments, e.g. ['nvcc', '{offload-arch-flags}',"
                         " '-c', 'k.cu', '-o', 'k.o']")
    job: Dict[str, Any] = {"id": _id(id, args[0]), "kind": "command", "argv": args}
    _put(job, "cwd", None if cwd is None else _path(cwd, "cwd"))
    _common(job, env, timeout, artifacts, platforms, archs)
    _put(job, "inputs", _strings(inputs, "inputs"))
    return job


def duration(value: Duration, name: str) -> str:
    """A duration as archpool writes one: strings as given (``90s``, ``10m``, ``1h30m``), numbers as seconds."""
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"{name} must be a duration: a string such as '90s', '10m' or '1h30m', a number of seconds"
                        f" or a datetime.timedelta, not {type(value).__name__}")
    if seconds <= 0:
        raise ValueError(f"{name} must be longer than zero (got {value!r})")
    ms = round(seconds * 1000)
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def _common(job: Dict[str, Any], env: Optional[Mapping[str, str]], timeout: Optional[Duration],
            artifacts: Optional[Sequence[PathArg]], platforms: Optional[Sequence[str]],
            archs: Optional[Sequence[str]]) -> None:
    _put(job, "env", None if env is None else _env(env))
    _put(job, "timeout", None if timeout is None else duration(timeout, "timeout"))
    _put(job, "artifacts", _strings(artifacts, "artifacts"))
    _put(job, "platforms", _names(platforms, "platforms"))
    _put(job, "archs", _names(archs, "archs"))


def _put(job: Dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        job[key] = value


def _id(given: Optional[str], named_after: str) -> str:
    if given is not None:
        if not isinstance(given, str):
            raise TypeError(f"id must be a string, not {type(given).__name__}")
        return given
    name = os.path.basename(os.path.normpath(named_after)) or "job"
    name = _ID_FORBIDDEN.sub("_", name)[:_MAX_ID]
    return "job" if name in ("", ".", "..") else name


def _path(value: PathArg, name: str) -> str:
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{name} must be a path (str or os.PathLike of str), not {type(value).__name__}")


def _optional_str(value: Optional[str], name: str) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    return value


def _strings(values: Optional[Sequence[Any]], name: str) -> Optional[List[str]]:
    if values is None:
        return None
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a list of strings, not one {type(values).__name__} (no shell splits it:"
                        f" write {name}=['a', 'b'], or ['sh', '-c', '...'] for a shell command)")
    out = []
    for i, value in enumerate(values):
        if not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name}[{i}] must be a string, not {type(value).__name__}")
        out.append(_path(value, f"{name}[{i}]"))
    return out


def _names(values: Optional[Sequence[Any]], name: str) -> Optional[List[str]]:
    """A list of plain strings (platform or architecture names; no paths)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes, os.PathLike)) or not isinstance(values, Iterable):
        hint = f" (write {name}=[{str(values)!r}])" if isinstance(values, (str, int)) else ""
        raise TypeError(f"{name} must be a list of strings, not {'one ' if isinstance(values, str) else ''}"
                        f"{type(values).__name__}{hint}")
    out = []
    for i, value in enumerate(values):
        if not isinstance(value, str):
            hint = f" (write {str(value)!r})" if isinstance(value, int) and not isinstance(value, bool) else ""
            raise TypeError(f"{name}[{i}] must be a string, not {type(value).__name__}{hint}")
        out.append(value)
    return out


def _defines(defines: Mapping[str, Any]) -> Dict[str, Any]:
    if not isinstance(defines, Mapping):
        raise TypeError(f"defines must be a mapping of CMake variable names to values, not {type(defines).__name__}")
    out: Dict[str, Any] = {}
    for key, value in defines.items():
        if not isinstance(key, str):
            raise TypeError(f"defines keys must be strings, not {type(key).__name__} ({key!r})")
        if isinstance(value, os.PathLike):
            value = _path(value, f"defines[{key!r}]")
        elif not isinstance(value, (str, bool, int, float)):
            raise TypeError(f"defines[{key!r}] must be a string, number or bool, not {type(value).__name__}")
        out[key] = value
    return out


def _env(env: Mapping[str, str]) -> Dict[str, str]:
    if not isinstance(env, Mapping):
        raise TypeError(f"env must be a mapping of variable names to strings, not {type(env).__name__}")
    out = {}
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"env must map strings to strings; {key!r}: {value!r} is not")
        out[key] = value
    return out
