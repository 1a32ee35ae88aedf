"""Running contenders: each in its own process group, timed (wall and CPU of all its descendants), and
stopped as a whole group when the harness is interrupted, so that Ctrl-C leaves no process behind. Sections may
run side by side (--lanes), each in a thread of its own: every contender's CPU time is its own (wait4), and once
stop_all has begun no contender starts."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence, Tuple

from .errors import UsageError

# Contenders running now (one per lane), and whether stop_all has begun; the lock makes "not stopping, so start
# and register" one step against stop_all's "stopping, so take the registered ones".
_running = set()
_stopping = False
_lock = threading.Lock()

# How long an interrupted contender may clean up after SIGTERM before its group is killed.
_GRACE_S = 10.0


@dataclass(frozen=True)
class Finished:
    """How one contender command ended and what it cost."""

    status: int
    wall_s: float
    cpu_s: float


class Stopped(KeyboardInterrupt):
    """A contender was to start after stop_all had begun (another lane failed, or the run was interrupted)."""


def run_timed(argv: Sequence[str], output: Path, *, env: Optional[Mapping[str, str]] = None,
              watch: Optional[Callable[[int], None]] = None,
              watch_every_s: float = 0.02) -> Finished:
    """Runs one contender command to its end in a new process group, stdout and stderr to `output`.

    Wall time is the whole command (time.perf_counter); CPU time is the user + sys time of the command's process
    and of every process under it that was waited for, as wait4 gives it for that process alone (another lane's
    contenders do not count). `watch(pid)`, if given, is called every `watch_every_s` while the command runs (and
    may find the process already gone)."""
    with open(output, "wb") as out:
        started = time.perf_counter()
        proc = start(lambda: _start(argv, out, env))  # stays registered if the wait is interrupted, for stop_all
        status, cpu = _wait(proc, watch, watch_every_s)
        wall = time.perf_counter() - started
        _running.discard(proc)
    return Finished(status, wall, cpu)


def start(popen: Callable[[], subprocess.Popen]) -> subprocess.Popen:
    """Starts a contender with `popen` and registers it, to be stopped with the others on Ctrl-C; raises Stopped
    instead once stop_all has begun."""
    with _lock:
        if _stopping:
            raise Stopped()
        proc = popen()
        _running.add(proc)
        return proc


def unregister(proc: subprocess.Popen) -> None:
    _running.discard(proc)


def _start(argv, out, env) -> subprocess.Popen:
    try:
        return subprocess.Popen(list(map(str, argv)), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=None if env is None else dict(env),
                                start_new_session=True)
    except FileNotFoundError:
        raise UsageError(f"{argv[0]} is not installed or not on the PATH") from None


def _wait(proc: subprocess.Popen, watch, every_s: float) -> Tuple[int, float]:
    """Reaps `proc` itself (wait4), calling `watch` meanwhile: its exit code as Popen gives it, and its CPU time."""
    while True:
        pid, status, usage = os.wait4(proc.pid, 0 if watch is None else os.WNOHANG)
        if pid == proc.pid:
            break
        watch(proc.pid)
        time.sleep(every_s)
    proc.returncode = os.waitstatus_to_exitcode(status)  # Popen's own wait and poll then return it
    return proc.returncode, usage.ru_utime + usage.ru_stime


def stop_all() -> None:
    """Stops every contender still running, and keeps any other from starting: SIGTERM to its process group
    (archpool then cancels its jobs and stops its workers), then SIGKILL to whatever is left of the group after a
    grace period."""
    global _stopping
    with _lock:
        _stopping = True
        running = list(_running)
    for proc in running:
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
