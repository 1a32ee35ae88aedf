"""Processes seen through /proc, for the tests that check what is left running."""

import json
import os
import select
import signal
import time
import uuid
import warnings
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Set


def _ppids() -> Dict[int, int]:
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue  # it exited meanwhile
            # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
            out[int(entry)] = int(stat[stat.rindex(b")") + 2:].split()[1])
    return out


def descendants(pid: int) -> Set[int]:
    """Every live process below ``pid``."""
    children: Dict[int, List[int]] = {}
    for child, parent in _ppids().items():
        children.setdefault(parent, []).append(child)
    found: Set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def with_argument(argument: str) -> Set[int]:
    """Live processes with ``argument`` as one of their arguments."""
    wanted = argument.encode()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if wanted in f.read().split(b"\0"):
                        found.add(int(entry))
            except OSError:
                continue
    return found


def alive(pids: Iterable[int]) -> Set[int]:
    """Those of ``pids`` that are neither gone nor zombies."""
    out = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(b")") + 2:].split()[0] != b"Z":
            out.add(pid)
    return out


def wait_gone(pids: Iterable[int], timeout: float) -> Set[int]:
    """Waits (on pidfds: no polling) until every one of ``pids`` exited, at most ``timeout`` seconds; returns
    those still running then."""
    fds = {}
    for pid in pids:
        try:
            fds[os.pidfd_open(pid)] = pid
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + timeout
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        waiting = set(fds)
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for fd, _ in poller.poll(left * 1000):
                poller.unregister(fd)
                waiting.discard(fd)
        return alive(fds[fd] for fd in waiting)
    finally:
        for fd in fds:
            os.close(fd)


class Sleeper:
    """A command job that says when it runs and then sleeps until it is killed: it writes a line to a FIFO
    (read here, no polling), then runs ``sleep`` with an argument no other process has (found in /proc). The shell
    stays (``; :`` keeps it from exec'ing ``sleep`` in its place) and carries the argument too, so that a scan just
    after the line never meets the one process that has it in the middle of an exec, when its cmdline reads
    empty."""

    def __init__(self, folder: Path) -> None:
        self.fifo = folder / f"started-{uuid.uuid4().hex[:8]}.fifo"
        os.mkfifo(self.fifo)
        # read-write, so that the FIFO has a writer and select waits for the job's line, not for EOF
        self._fd = os.open(self.fifo, os.O_RDWR | os.O_NONBLOCK)
        self.marker = f"300.{uuid.uuid4().int % 10**9:09d}"
        self.argv = ["sh", "-c", 'echo started > "$1" && sleep "$2"; :', "sh", str(self.fifo), self.marker]

    def wait_started(self, timeout: float = 60) -> Set[int]:
        """Blocks until the job runs; the pids with the marker (the ``sleep``, and what runs it: the job's
        wrappers carry its argv)."""
        readable, _, _ = select.select([self._fd], [], [], timeout)
        if not readable:
            raise AssertionError(f"the job {self.argv} did not start within {timeout} s")
        os.read(self._fd, 64)
        pids = with_argument(self.marker)
        assert pids, f"no process has the argument {self.marker}"
        return pids

    def pids(self) -> Set[int]:
        return alive(with_argument(self.marker))

    def close(self) -> None:
        os.close(self._fd)


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "(gone)"


def kill_all(pids: Iterable[int]) -> None:
    """SIGKILL to each of ``pids`` that still runs (a test's clean-up after it failed)."""
    for pid in alive(pids):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def run_in_fork(uses: Dict[str, Callable[[], object]], timeout: float = 30) -> Dict[str, str]:
    """Forks; the child runs each of ``uses`` and reports, through a pipe, what each raised ("returned" if nothing);
    the parent returns that report once the child exited."""
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork() of a process with threads
        child = os.fork()
    if child == 0:  # the child: never back into pytest
        code = 1
        try:
            os.close(read)
            report: Dict[str, str] = {}
            for name, use in uses.items():
                try:
                    use()
                    report[name] = "returned"
                except BaseException as e:  # noqa: BLE001 - reported to the parent
                    report[name] = f"{type(e).__name__}: {e}"
            os.write(write, json.dumps(report).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        chunks = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            readable, _, _ = select.select([read], [], [], max(left, 0))
            if not readable:
                raise AssertionError(f"the forked child did not report within {timeout} s")
            chunk = os.read(read, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        assert os.waitpid(child, 0)[1] == 0
        child = 0
        return json.loads(b"".join(chunks))
    finally:
        os.close(read)
        if child:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
