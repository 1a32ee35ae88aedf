"""Running contenders: each in its own process group, timed (wall and CPU of all its descendants), and
stopped as a whole group when the harness is interrupted, so that Ctrl-C leaves no process behind."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence, Tuple

from .errors import UsageError

# Contenders running now (at most one, but stop_all does not rely on it).
_running = set()

# How long an interrupted contender may clean up after SIGTERM before its group is killed.
_GRACE_S = 10.0


@dataclass(frozen=True)
class Finished:
    """How one contender command ended and what it cost."""

    status: int
    wall_s: float
    cpu_s: float


def _children_cpu_s() -> float:
    """user + sys of every descendant this process has reaped (and those they reaped) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: Sequence[str], output: Path, *, env: Optional[Mapping[str, str]] = None,
              watch: Optional[Callable[[int], None]] = None,
              watch_every_s: float = 0.02) -> Finished:
    """Runs one contender command to its end in a new process group, stdout and stderr to `output`.

    Wall time is the whole command (time.perf_counter); CPU time is the RUSAGE_CHILDREN delta, i.e. the
    user + sys time of every process under it that was waited for. `watch(pid)`, if given, is called every
    `watch_every_s` while the command runs (and may find the process already gone)."""
    with open(output, "wb") as out:
        cpu_before = _children_cpu_s()
        started = time.perf_counter()
        proc = _start(argv, out, env)
        _running.add(proc)  # stays registered if the wait is interrupted, for stop_all
        status = _wait(proc, watch, watch_every_s)
        wall = time.perf_counter() - started
        _running.discard(proc)
    return Finished(status, wall, _children_cpu_s() - cpu_before)


def register(proc: subprocess.Popen) -> None:
    """A contender started elsewhere (in a session of its own), to be stopped with the others on Ctrl-C."""
    _running.add(proc)


def unregister(proc: subprocess.Popen) -> None:
    _running.discard(proc)


def _start(argv, out, env) -> subprocess.Popen:
    try:
        return subprocess.Popen(list(map(str, argv)), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=None if env is None else dict(env),
                                start_new_session=True)
    except FileNotFoundError:
        raise UsageError(f"{argv[0]} is not installed or not on the PATH") from None


def _wait(proc: subprocess.Popen, watch, every_s: float) -> int:
    if watch is None:
        return proc.wait()
    while proc.poll() is None:
        watch(proc.pid)
        time.sleep(every_s)
    return proc.returncode


def stop_all() -> None:
    """Stops every contender still running: SIGTERM to its process group (archpool then cancels its jobs and
    stops its workers), then SIGKILL to whatever is left of the group after a grace period."""
    for proc in list(_running):
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
        _running.discard(proc)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def quick(argv: Sequence[str]) -> Tuple[Optional[int], str]:
    """Runs a short informational command (a version, a check): its status (None when it could not run)
    and its stdout and stderr."""
    try:
        done = subprocess.run(list(map(str, argv)), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None, ""
    return done.returncode, done.stdout + done.stderr
