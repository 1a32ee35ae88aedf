"""Section 4, memory: the coordinator's peak RSS with many queued jobs, and an idle worker's RSS."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import List, Optional

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult
from ..errors import BenchError
from ..figures import Figure, at_most, derived, median_of

COORDINATOR_MAIN = "org.archpool.orchestrator.cli.Main"
WORKER_MAIN = "org.archpool.worker.WorkerMain"
COORDINATOR_TARGET_MIB = 200
WORKER_TARGET_MIB = 64
RSS_WORKERS = 4
# A job that waits a second, then prints its parent's resident memory and command line (the parent of a
# job's process is its worker JVM; the command line proves it).
RSS_JOB = ["sh", "-c", "sleep 1; grep VmRSS /proc/$PPID/status; tr '\\0' ' ' < /proc/$PPID/cmdline; echo"]


class PeakWatcher:
    """Polls a process's VmHWM (peak resident memory) in /proc and keeps the last value read, together with
    whether the process was then the coordinator JVM (bin/archpool is a script that execs java)."""

    def __init__(self):
        self.peak_kib: Optional[int] = None
        self.was_coordinator = False

    def __call__(self, pid: int) -> None:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # already gone
            return
        peak = _kib(status, "VmHWM:")
        if peak is not None:  # None once it is a zombie
            self.peak_kib = peak
            self.was_coordinator = COORDINATOR_MAIN.encode() in cmdline


def _kib(status: str, field: str) -> Optional[int]:
    for line in status.splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return None


def run(ctx: Context) -> SectionResult:
    peak_mib, manifest_kib = _coordinator_peak(ctx)
    ctx.say(f"[memory] coordinator with {ctx.options.queued_jobs} queued jobs: peak RSS {peak_mib:.1f} MiB")
    rss = _worker_rss(ctx)
    ctx.say(f"[memory] {len(rss)} workers while their jobs run: RSS mean {statistics.mean(rss):.1f} MiB, "
            f"max {max(rss):.1f} MiB")
    figures: List[Figure] = [
        median_of("memory.coordinator-peak", f"coordinator peak RSS, {ctx.options.queued_jobs} jobs at -j2", "MiB",
                  [peak_mib], sample_name="build", target=at_most(COORDINATOR_TARGET_MIB)),
        derived("memory.manifest-size", "its manifest", "KiB", manifest_kib),
        Figure("memory.worker-rss-mean", "idle worker RSS, mean", "MiB", statistics.mean(rss), tuple(rss),
               "worker", at_most(WORKER_TARGET_MIB)),
        derived("memory.worker-rss-max", "idle worker RSS, max", "MiB", max(rss), at_most(WORKER_TARGET_MIB)),
    ]
    return SectionResult("memory", "Memory", _notes(ctx), figures,
                         raw={"coordinatorPeakMiB": peak_mib, "manifestKiB": manifest_kib, "workerRssMiB": rss})


def _coordinator_peak(ctx: Context):
    """(peak RSS in MiB, manifest size in KiB) of a build of --queued-jobs trivial jobs at -j2."""
    folder = ctx.folder("memory", "coordinator")
    manifest = folder / "manifest.json"
    size = write_manifest(manifest, command_jobs(ctx.options.queued_jobs, ["true"], ctx.folder("memory", "empty")))
    watcher = PeakWatcher()
    ctx.archpool.build(manifest, folder, ["--arch", ctx.options.arch, "-j2"], watch=watcher)
    if watcher.peak_kib is None or not watcher.was_coordinator:
        raise BenchError(f"could not read the coordinator JVM's VmHWM (is bin/archpool still a script that "
                         f"execs java, {COORDINATOR_MAIN}?)")
    ctx.discard(folder / "logs")
    return watcher.peak_kib / 1024, size / 1024


def _worker_rss(ctx: Context) -> List[float]:
    """VmRSS in MiB of each of RSS_WORKERS workers, read by a job it runs."""
    folder = ctx.folder("memory", "workers")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(RSS_WORKERS, RSS_JOB, ctx.folder("memory", "workers-cwd"), prefix="rss"))
    build = ctx.archpool.build(manifest, folder, ["--arch", ctx.options.arch, f"-j{RSS_WORKERS}"])
    return [_rss_from_log(Path(job["logPath"])) for job in build.jobs()]


def _rss_from_log(log: Path) -> float:
    text = log.read_text(errors="replace")
    if WORKER_MAIN not in text:
        raise BenchError(f"the job in {log} did not run directly under a worker JVM ({WORKER_MAIN}): "
                         f"its parent's RSS is not the worker's")
    kib = _kib(text, "VmRSS:")
    if kib is None:
        raise BenchError(f"no VmRSS line in {log}")
    return kib / 1024


def _notes(ctx: Context) -> str:
    return (
        f"Coordinator: `archpool build` of {ctx.options.queued_jobs} trivial command jobs (`true`) at `-j2`, "
        f"so that nearly all of them wait in the queue; its JVM's `VmHWM` (peak resident memory, from "
        f"`/proc/<pid>/status`) is read every 20 ms until it exits, and the last value read is its peak.\n\n"
        f"Workers: a build at `-j{RSS_WORKERS}` whose {RSS_WORKERS} jobs each wait 1 s and then read their "
        f"worker's `VmRSS` (`/proc/$PPID/status`, from a `sh -c` job: the job's parent is the worker JVM, "
        f"checked by its command line naming `{WORKER_MAIN}`). Memory is in MiB (2^20 bytes).")
