"""Section 4, memory: the coordinator's peak RSS with many queued jobs, and an idle worker's RSS."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Dict, List, Optional

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult
from ..errors import BenchError
from ..figures import Figure, at_most, derived, median_of

COORDINATOR_MAIN = "org.archpool.orchestrator.cli.Main"
WORKER_MAIN = "org.archpool.worker.WorkerMain"
COORDINATOR_TARGET_MIB = 200
WORKER_TARGET_MIB = 64
RSS_WORKERS = 4
# A job that keeps its worker busy for two seconds, while the bench reads the worker's resident memory from
# outside (a job runs in a PID namespace of its own and cannot see its worker).
RSS_JOB = ["sh", "-c", "sleep 2"]


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
        # VmHWM is gone once it is a zombie, and its cmdline reads empty while it exits (or execs): such a sample
        # says nothing about which program it is, and VmHWM only grows, so the last full sample stands
        if peak is not None and cmdline:
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


class WorkerRssWatcher:
    """Reads, every time it is called with the coordinator's pid, the VmRSS of each worker JVM under it (a child
    whose command line names the worker's main class) and keeps each worker's largest value."""

    def __init__(self):
        self.rss_kib: Dict[int, int] = {}

    def __call__(self, coordinator: int) -> None:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) != coordinator:
                    continue
                folder = stat.parent
                if WORKER_MAIN.encode() not in (folder / "cmdline").read_bytes():
                    continue
                kib = _kib((folder / "status").read_text(), "VmRSS:")
            except (OSError, IndexError, ValueError):  # gone, or not a process
                continue
            if kib is not None:
                pid = int(folder.name)
                self.rss_kib[pid] = max(kib, self.rss_kib.get(pid, 0))


def _worker_rss(ctx: Context) -> List[float]:
    """VmRSS in MiB of each of RSS_WORKERS workers, read while each runs a job."""
    folder = ctx.folder("memory", "workers")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(RSS_WORKERS, RSS_JOB, ctx.folder("memory", "workers-cwd"), prefix="rss"))
    watcher = WorkerRssWatcher()
    ctx.archpool.build(manifest, folder, ["--arch", ctx.options.arch, f"-j{RSS_WORKERS}"], watch=watcher)
    if len(watcher.rss_kib) != RSS_WORKERS:
        raise BenchError(f"found {len(watcher.rss_kib)} worker JVMs ({WORKER_MAIN}) under the coordinator, not "
                         f"{RSS_WORKERS}: is the worker still started directly by the coordinator?")
    return [kib / 1024 for kib in watcher.rss_kib.values()]


def _notes(ctx: Context) -> str:
    return (
        f"Coordinator: `archpool build` of {ctx.options.queued_jobs} trivial command jobs (`true`) at `-j2`, "
        f"so that nearly all of them wait in the queue; its JVM's `VmHWM` (peak resident memory, from "
        f"`/proc/<pid>/status`) is read every 20 ms until it exits, and the last value read is its peak.\n\n"
        f"Workers: a build at `-j{RSS_WORKERS}` whose {RSS_WORKERS} jobs each wait 2 s; every 20 ms the bench "
        f"reads the `VmRSS` of each worker JVM under the coordinator (a child whose command line names "
        f"`{WORKER_MAIN}`) and keeps each worker's largest. Memory is in MiB (2^20 bytes).")
