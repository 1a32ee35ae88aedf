"""The machine a run measured: CPU, cores, memory, kernel and the versions of every tool involved."""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path
from typing import Dict, Iterable, List

from .errors import UsageError
from .processes import quick


def cores() -> int:
    """CPUs this process may run on (its affinity, not the machine's total)."""
    return len(os.sched_getaffinity(0))


def require_tools(tools: Iterable[str]) -> None:
    """Stops with a message naming every tool that is not on the PATH."""
    missing = sorted({tool for tool in tools if shutil.which(tool) is None})
    if missing:
        raise UsageError(f"not on the PATH: {', '.join(missing)} (the selected sections run them; "
                         f"scripts/setup-debian.sh installs them)")


def describe(archpool_version: str) -> Dict[str, str]:
    """What the report's machine table shows, in order."""
    return {
        "CPU": _cpu_model(),
        "cores": str(cores()),
        "RAM": _memory(),
        "kernel": f"{platform.system()} {platform.release()}",
        "java": _first_line(quick(["java", "-version"])[1]),
        "cmake": _first_line(quick(["cmake", "--version"])[1]),
        "ninja": _first_line(quick(["ninja", "--version"])[1]),
        "nvcc": _matching_line(quick(["nvcc", "--version"])[1], "release"),
        "archpool": archpool_version,
    }


def _cpu_model() -> str:
    for line in _lines(Path("/proc/cpuinfo")):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _memory() -> str:
    for line in _lines(Path("/proc/meminfo")):
        if line.startswith("MemTotal:"):
            return f"{int(line.split()[1]) / 1024 ** 2:.1f} GiB"
    return "unknown"


def _lines(path: Path) -> List[str]:
    try:
        return path.read_text().splitlines()
    except OSError:
        return []


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "not found"


def _matching_line(text: str, word: str) -> str:
    found = [line for line in text.splitlines() if word in line]
    return found[0].strip() if found else _first_line(text)
