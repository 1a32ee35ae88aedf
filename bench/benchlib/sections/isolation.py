"""Section 8, isolation: what `--isolate-devices on` adds to a worker's start and to a step, against `off`,
measured through archpool itself (the same builds, interleaved)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Dict, List

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult, interleaved
from ..figures import at_most, derived, median_of

TARGET_MS = 10
SETTINGS = ("off", "on")


def run(ctx: Context) -> SectionResult:
    count = ctx.options.worker_starts
    folder = ctx.folder("isolation")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(count, ["true"], ctx.folder("isolation", "empty")))
    starts: Dict[str, List[float]] = defaultdict(list)
    steps: Dict[str, List[float]] = defaultdict(list)
    raw = []
    for round_no, setting in interleaved(list(SETTINGS), ctx.options.runs):
        run_dir = ctx.folder("isolation", f"round{round_no}-{setting}")
        build = ctx.archpool.build(manifest, run_dir, ["--arch", ctx.options.arch, "-j1", "--max-jobs-per-worker",
                                                       "1", "--isolate-devices", setting])
        worker_ms = [e["startMs"] for e in build.started_workers()]
        step_ms = [p["ms"] for job in build.jobs() for p in job["phases"] if p["name"] == "command"]
        isolation = build.report["pool"].get("deviceIsolation")
        starts[setting].append(statistics.median(worker_ms))
        steps[setting].append(statistics.median(step_ms))
        raw.append({"round": round_no, "setting": setting, "deviceIsolation": isolation,
                    "workerStartMs": worker_ms, "stepMs": step_ms})
        ctx.say(f"[isolation] round {round_no}/{ctx.options.runs} --isolate-devices {setting} ({isolation}): "
                f"worker start {starts[setting][-1]:.0f} ms, step {steps[setting][-1]:.0f} ms")
        ctx.discard(run_dir)
    figures = []
    for setting in SETTINGS:
        figures.append(median_of(f"isolation.start.{setting}", f"worker start, --isolate-devices {setting}", "ms",
                                 starts[setting]))
        figures.append(median_of(f"isolation.step.{setting}", f"`true` step, --isolate-devices {setting}", "ms",
                                 steps[setting]))
    for name, values in (("start", starts), ("step", steps)):
        figures.append(derived(f"isolation.added.{name}", f"added by isolation to a {'worker start' if name == 'start' else 'step'}",
                               "ms", statistics.median(values["on"]) - statistics.median(values["off"]),
                               at_most(TARGET_MS)))
    return SectionResult("isolation", f"Device isolation: {count} workers and steps, on against off", _notes(ctx),
                         figures, raw={"runs": raw})


def _notes(ctx: Context) -> str:
    n = ctx.options.worker_starts
    return (
        f"Per round, one `archpool build` of {n} trivial command jobs (`true`) at `-j1 --max-jobs-per-worker 1` "
        f"(every job a fresh worker, one after the other) with `--isolate-devices off`, and the same with `on`, "
        f"interleaved. A worker's start is `pool.workerEvents[].startMs` (launch to `hello`), a step is the job's "
        f"`command` phase as the worker timed it; each run gives their medians. What isolation adds is the "
        f"difference of the medians; on a machine without a GPU there are few paths to mask "
        f"(`scripts/isolation-cost.sh` times nine stand-ins).")
