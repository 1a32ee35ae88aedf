"""Section 3, worker start: launch to `hello` of workers started one after the other."""

from __future__ import annotations

from typing import List

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult
from ..errors import BenchError
from ..figures import at_most, median_of

TARGET_MS = 150
MODES = ("process", "thread")


def run(ctx: Context) -> SectionResult:
    count = ctx.options.worker_starts
    folder = ctx.folder("start")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(count, ["true"], ctx.folder("start", "empty")))
    figures, raw = [], {}
    for mode in MODES:
        starts = _start_times(ctx, manifest, mode)
        ctx.say(f"[start] {mode} mode: {len(starts)} workers, launch to hello "
                f"{min(starts)}–{max(starts)} ms")
        raw[mode] = starts
        figures.append(median_of(f"start.{mode}", f"worker start, --mode {mode}", "ms", starts,
                                 sample_name="worker", target=at_most(TARGET_MS) if mode == "process" else None))
    return SectionResult("start", f"Worker start: {count} workers, one after the other", _notes(ctx), figures,
                         raw={"startMs": raw})


def _start_times(ctx: Context, manifest, mode: str) -> List[int]:
    """pool.workerEvents[].startMs of every worker a build at -j1 --max-jobs-per-worker 1 started."""
    run_dir = ctx.folder("start", mode)
    build = ctx.archpool.build(manifest, run_dir, ["--arch", ctx.options.arch, "-j1", "--max-jobs-per-worker", "1",
                                                   "--mode", mode])
    started = build.started_workers()
    if any("startMs" not in event for event in started):
        raise BenchError("this archpool's report has no pool.workerEvents[].startMs (launch to hello); "
                         "build a newer distribution")
    if len(started) != ctx.options.worker_starts:
        raise BenchError(f"{ctx.options.worker_starts} jobs at --max-jobs-per-worker 1 started "
                         f"{len(started)} workers ({mode} mode); see {run_dir / 'report.json'}")
    return [event["startMs"] for event in started]


def _notes(ctx: Context) -> str:
    return (
        f"One `archpool build` of {ctx.options.worker_starts} trivial command jobs at `-j1 "
        f"--max-jobs-per-worker 1`, so that every job gets a fresh worker, started one after the other while "
        f"nothing else runs. Each worker's start is `pool.workerEvents[].startMs` of the report: from launching "
        f"it to its `hello`. The same build with `--mode thread` (a worker is a thread of the coordinator) is "
        f"for contrast.")
