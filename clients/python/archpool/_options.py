"""The command line of ``archpool serve`` from a Pool's keyword options: each option is one flag, spelled as in
docs/service.md with ``_`` for ``-`` (``log_dir="…"`` is ``--log-dir …``, ``quiet=True`` is ``-q``).

The values' meaning is archpool's to check (one validator: a wrong value is archpool's own paragraph, raised as
:class:`UsageError`); here only the Python types are.
"""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from ._jobs import duration

__all__ = ["OPTIONS", "serve_flags"]


def _text(flag: str) -> Callable[[str, Any], List[str]]:
    def render(name: str, value: Any) -> List[str]:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, not {type(value).__name__}")
        return [flag, value]
    return render


def _number(flag: str) -> Callable[[str, Any], List[str]]:
    def render(name: str, value: Any) -> List[str]:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        return [flag, str(value)]
    return render


def _duration(flag: str) -> Callable[[str, Any], List[str]]:
    def render(name: str, value: Any) -> List[str]:
        return [flag, duration(value, name)]
    return render


def _size(flag: str) -> Callable[[str, Any], List[str]]:
    """A string as given (``'10G'``, ``'512M'``), or an int number of bytes."""
    def render(name: str, value: Any) -> List[str]:
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 0:
                raise ValueError(f"{name} must not be negative (got {value})")
            return [flag, str(value)]
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a size: a string such as '10G' or '512M', or an int number of bytes, not"
                            f" {type(value).__name__}")
        return [flag, value]
    return render


def _arch_list(flag: str) -> Callable[[str, Any], List[str]]:
    """A string as given (``'80;90'``), or a sequence of names joined with ``;``."""
    def render(name: str, value: Any) -> List[str]:
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            return [flag, str(value)]
        if isinstance(value, Sequence) and all(isinstance(a, (str, int)) and not isinstance(a, bool) for a in value):
            return [flag, ";".join(str(a) for a in value)]
        raise TypeError(f"{name} must be a string such as '90' or '80;90', or a list of architectures, not"
                        f" {type(value).__name__}")
    return render


def _switch(flag: str) -> Callable[[str, Any], List[str]]:
    def render(name: str, value: Any) -> List[str]:
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
        return [flag] if value else []
    return render


def _repeated(flag: str) -> Callable[[str, Any], List[str]]:
    def render(name: str, value: Any) -> List[str]:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, Sequence) or not all(isinstance(v, str) for v in values):
            raise TypeError(f"{name} must be a string or a list of strings, not {type(value).__name__}")
        return [f"{flag}={v}" for v in values]
    return render


def _repeated_value(flag: str) -> Callable[[str, Any], List[str]]:
    """A list of strings, each its own ``FLAG VALUE`` (``gpu_targets=["cuda:80,90", "hip:gfx942"]`` is
    ``--target cuda:80,90 --target hip:gfx942``)."""
    def render(name: str, value: Any) -> List[str]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) \
                or not all(isinstance(v, str) for v in value):
            hint = f" (write {name}=[{value!r}])" if isinstance(value, str) else ""
            raise TypeError(f"{name} must be a list of strings such as ['cuda:80,90', 'hip:gfx942'], not"
                            f" {'one ' if isinstance(value, str) else ''}{type(value).__name__}{hint}")
        return [part for v in value for part in (flag, v)]
    return render


#: Every keyword option a Pool takes, and how it becomes flags.
OPTIONS: Dict[str, Callable[[str, Any], List[str]]] = {
    "mode": _text("--mode"),
    "fallback_arch": _arch_list("--fallback-arch"),
    "probe_timeout": _duration("--probe-timeout"),
    "no_toolchain_check": _switch("--no-toolchain-check"),
    "timeout": _duration("--timeout"),
    "retries": _number("--retries"),
    "max_jobs_per_worker": _number("--max-jobs-per-worker"),
    "build_parallelism": _number("--build-parallelism"),
    "heartbeat_timeout": _duration("--heartbeat-timeout"),
    "worker_start_timeout": _duration("--worker-start-timeout"),
    "order": _text("--order"),
    "gpu_targets": _repeated_value("--target"),
    "no_configure_seed": _switch("--no-configure-seed"),
    "launcher": _text("--launcher"),
    "partition": _text("--partition"),
    "srun_arg": _repeated("--srun-arg"),
    "isolate_devices": _text("--isolate-devices"),
    "verify": _text("--verify"),
    "forbid_hostcall": _switch("--forbid-hostcall"),
    "report": _text("--report"),
    "log_dir": _text("--log-dir"),
    "max_log_size": _size("--max-log-size"),
    "metrics": _text("--metrics"),
    "trace": _text("--trace"),
    "junit": _text("--junit"),
    "html": _text("--html"),
    "cache": _text("--cache"),
    "no_cache": _switch("--no-cache"),
    "remote_cache": _text("--remote-cache"),
    "remote_cache_read_only": _switch("--remote-cache-read-only"),
    "remote_cache_timeout": _duration("--remote-cache-timeout"),
    "cache_max_size": _size("--cache-max-size"),
    "client_stall_limit": _duration("--client-stall-limit"),
    "quiet": _switch("-q"),
    "verbose": _switch("-v"),
}


def serve_flags(jobs: Optional[int], platform: Optional[str], arch: Union[None, str, int, Sequence[Union[str, int]]],
                options: Mapping[str, Any]) -> List[str]:
    """Every flag of ``archpool serve`` that the arguments ask for.

    :raises TypeError: for options no flag has (naming each, and the ones there are) and values of the wrong type.
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"Pool() got unknown option{'s' if len(unknown) > 1 else ''} "
                        + ", ".join(repr(u) for u in unknown) + "; the options are jobs, platform, arch, archpool, "
                        + ", ".join(OPTIONS))
    command: List[str] = []
    if jobs is not None:
        command += _number("-j")("jobs", jobs)
    # Pool's default platform "auto" is no choice of the caller's: gpu_targets name their platforms themselves
    if platform is not None and not (platform == "auto" and options.get("gpu_targets") is not None):
        command += _text("--platform")("platform", platform)
    if arch is not None:
        command += _arch_list("--arch")("arch", arch)
    for name, value in options.items():
        if value is not None:
            command += OPTIONS[name](name, value)
    return command
