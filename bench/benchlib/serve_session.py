"""One `archpool serve --stdio` driven over its client protocol (docs/service.md) straight from the bench, so
that what is measured is serve itself and not a client library: submit -> accepted latency, trivial jobs per
second, and the coordinator's peak resident memory."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from .errors import BenchError
from .processes import start, unregister

SERVICE_VERSION = 1


class ServeSession:
    """A running `serve --stdio`: a reader thread files every line by type; results are counted as they come."""

    def __init__(self, launcher: Path, run_dir: Path, flags: Sequence[str]):
        self.run_dir = run_dir
        self.stderr_path = run_dir / "serve.err"
        argv = [str(launcher), "serve", "--stdio", "-q", "--log-dir", str(run_dir / "logs"),
                "--report", str(run_dir / "report.json"), *map(str, flags)]
        self._stderr = open(self.stderr_path, "wb")
        self.started = time.perf_counter()
        self.proc = start(lambda: subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=self._stderr, start_new_session=True))
        self._accepted: "queue.Queue[dict]" = queue.Queue()
        self._other: "queue.Queue[dict]" = queue.Queue()
        self._results: Dict[str, dict] = {}
        self._results_cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="serve-reader", daemon=True)
        self._reader.start()
        self.hello = self._next(self._other, "hello", 300)
        self.ready_s = time.perf_counter() - self.started
        if self.hello.get("service") != SERVICE_VERSION:
            raise BenchError(f"serve speaks service version {self.hello.get('service')}, the bench {SERVICE_VERSION}")
        self.pid = int(self.hello["pid"])

    def _read(self) -> None:
        for raw in self.proc.stdout:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "accepted":
                self._accepted.put(message)
            elif kind == "result":
                with self._results_cond:
                    self._results[message["clientJobId"]] = message
                    self._results_cond.notify_all()
            elif kind == "started":
                pass  # a job handed to a worker: nothing the bench measures
            else:
                self._other.put(message)
        self._other.put({"type": "eof"})
        self._accepted.put({"type": "eof"})
        with self._results_cond:
            self._results_cond.notify_all()

    def _next(self, source: "queue.Queue[dict]", kind: str, timeout_s: float) -> dict:
        try:
            message = source.get(timeout=timeout_s)
        except queue.Empty:
            raise BenchError(f"serve sent no '{kind}' within {timeout_s:.0f} s; see {self.stderr_path}") from None
        if message.get("type") != kind:
            raise BenchError(f"serve sent {message} where '{kind}' was expected; see {self.stderr_path}")
        return message

    def send(self, message: dict) -> None:
        self.proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
        self.proc.stdin.flush()

    def submit(self, client_job_id: str, cwd: Path, job: dict) -> None:
        self.send({"type": "submit", "clientJobId": client_job_id, "cwd": str(cwd), "job": job})

    def accepted(self, timeout_s: float = 60) -> dict:
        return self._next(self._accepted, "accepted", timeout_s)

    def wait_results(self, count: int, timeout_s: float) -> List[dict]:
        deadline = time.monotonic() + timeout_s
        with self._results_cond:
            while len(self._results) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise BenchError(f"serve gave {len(self._results)} of {count} results; see {self.stderr_path}")
                self._results_cond.wait(min(left, 1.0))
            return list(self._results.values())

    def peak_rss_kib(self) -> Optional[int]:
        """The coordinator JVM's VmHWM (bin/archpool execs java, so it is the process started)."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        except OSError:
            return None
        return None

    def shutdown(self, timeout_s: float = 120) -> dict:
        self.send({"type": "shutdown", "cancelRunning": False})
        bye = self._next(self._other, "bye", timeout_s)
        self.proc.stdin.close()
        status = self.proc.wait(timeout=timeout_s)
        unregister(self.proc)
        self._stderr.close()
        if status != 0:
            raise BenchError(f"serve exited with status {status} after shutdown; see {self.stderr_path}")
        return bye


def trivial_job(index: int, cwd: Path) -> dict:
    """A `true` command job. Identical jobs in flight share one build, so each gets a variable of its own."""
    return {"id": f"t{index}", "kind": "command", "argv": ["true"], "cwd": str(cwd), "env": {"BENCH_JOB": str(index)}}


def pump(session: ServeSession, count: int, cwd: Path, start: int = 1,
         job: Callable[[int, Path], dict] = trivial_job) -> float:
    """Submits `count` jobs as fast as serve takes them (a writer thread; accepted lines are drained) and waits
    for every result; returns the seconds from the first submit to the last result."""
    began = time.perf_counter()

    def write() -> None:
        for i in range(start, start + count):
            session.submit(f"c{i}", cwd, job(i, cwd))

    writer = threading.Thread(target=write, name="serve-writer", daemon=True)
    writer.start()
    for _ in range(count):
        session.accepted(timeout_s=600)
    results = session.wait_results(start - 1 + count, timeout_s=3600)
    writer.join()
    elapsed = time.perf_counter() - began
    failed = [r for r in results if r["job"]["outcome"] != "succeeded"]
    if failed:
        raise BenchError(f"{len(failed)} jobs through serve did not succeed (first: {failed[0]['job']}); "
                         f"see {session.run_dir}")
    return elapsed


def accept_latencies(session: ServeSession, count: int, cwd: Path, start: int) -> List[float]:
    """`count` submits one at a time, each after the previous one's `accepted`: milliseconds from writing
    the line to reading `accepted`, on a pool that is warm (its workers started and idle or busy with the
    earlier trivial jobs)."""
    latencies = []
    for i in range(start, start + count):
        sent = time.perf_counter()
        session.submit(f"c{i}", cwd, trivial_job(i, cwd))
        session.accepted()
        latencies.append((time.perf_counter() - sent) * 1000)
    session.wait_results(start - 1 + count, timeout_s=600)
    return latencies
