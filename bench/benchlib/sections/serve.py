"""Section 7, serve: a long-running `archpool serve --stdio` driven over its client protocol: submit -> accepted
latency on a warm pool, trivial jobs per second against xargs -P, what each layer costs a job, and the
coordinator's peak RSS with many jobs submitted at once."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List

from ..context import Context, SectionResult, interleaved
from ..errors import BenchError
from ..figures import Figure, at_least, at_most, derived, median_of
from ..processes import run_timed
from ..serve_session import ServeSession, accept_latencies, pump

PARALLELISM = 2
LATENCY_SUBMITS = 200
LATENCY_P99_TARGET_MS = 5.0
RATE_RATIO_TARGET = 0.3
RSS_TARGET_MIB = 200
CONTENDERS = ("serve", "xargs")


@dataclass(frozen=True)
class ServeRun:
    rate: float
    latencies_ms: List[float]
    ready_s: float
    layers_ms: Dict[str, float]


def run(ctx: Context) -> SectionResult:
    opts = ctx.options
    empty = ctx.folder("serve", "empty")
    lines = ctx.folder("serve", "xargs") / "lines.txt"
    lines.write_text("".join(f"{i}\n" for i in range(1, opts.dispatch_jobs + 1)))
    rates: Dict[str, List[float]] = defaultdict(list)
    latencies: List[float] = []
    p99s: List[float] = []
    ready: List[float] = []
    layers: Dict[str, List[float]] = defaultdict(list)
    raw = []
    for round_no, contender in interleaved(CONTENDERS, opts.runs):
        run_dir = ctx.folder("serve", f"round{round_no}-{contender}")
        if contender == "serve":
            measured = _serve(ctx, run_dir, empty)
            rates["serve"].append(measured.rate)
            latencies.extend(measured.latencies_ms)
            p99s.append(_percentile(measured.latencies_ms, 99))
            ready.append(measured.ready_s)
            for name, ms in measured.layers_ms.items():
                layers[name].append(ms)
            raw.append({"round": round_no, "contender": contender, "jobsPerS": measured.rate,
                        "acceptP50Ms": _percentile(measured.latencies_ms, 50), "acceptP99Ms": p99s[-1],
                        "readyS": measured.ready_s, "layersMs": measured.layers_ms})
            ctx.say(f"[serve] round {round_no}/{opts.runs} serve -j{PARALLELISM}: {measured.rate:.0f} jobs/s, "
                    f"accepted p99 {p99s[-1]:.2f} ms")
        else:
            finished = run_timed(["xargs", "-P", str(PARALLELISM), "-I", "{}", "-a", lines, "true"],
                                 run_dir / "xargs.out")
            if finished.status != 0:
                raise BenchError(f"xargs exited with status {finished.status}; see {run_dir}")
            rate = opts.dispatch_jobs / finished.wall_s
            rates["xargs"].append(rate)
            raw.append({"round": round_no, "contender": contender, "jobsPerS": rate})
            ctx.say(f"[serve] round {round_no}/{opts.runs} xargs -P{PARALLELISM}: {rate:.0f} jobs/s")
        ctx.discard(run_dir)
    peak_mib = _memory(ctx, empty)
    raw.append({"memoryJobs": opts.serve_jobs, "peakRssMiB": peak_mib})
    figures = [
        median_of("serve.ready", "serve: start to hello (JVM, resolution, toolchain check, workers)", "s", ready),
        derived("serve.accept.p50", "submit → accepted, p50 of every run's submits", "ms",
                _percentile(latencies, 50)),
        median_of("serve.accept.p99", "submit → accepted, p99 (median of the runs' p99)", "ms", p99s,
                  target=at_most(LATENCY_P99_TARGET_MS)),
        median_of("serve.rate.serve", f"serve -j{PARALLELISM}: jobs/s, first submit to last result", "jobs/s",
                  rates["serve"]),
        median_of("serve.rate.xargs", f"xargs -P{PARALLELISM}: jobs/s, whole command", "jobs/s", rates["xargs"]),
        derived("serve.ratio", f"serve -j{PARALLELISM} / xargs -P{PARALLELISM} (jobs/s)", "ratio",
                statistics.median(rates["serve"]) / statistics.median(rates["xargs"]),
                at_least(RATE_RATIO_TARGET)),
    ]
    figures += [median_of(f"serve.layer.{name}", label, "ms", layers[name]) for name, label in LAYERS.items()
                if layers[name]]
    figures.append(Figure("serve.rss", f"serve: coordinator peak RSS, {opts.serve_jobs} jobs submitted at once",
                          "MiB", peak_mib, (peak_mib,), "build", at_most(RSS_TARGET_MIB)))
    return SectionResult("serve", f"serve: {opts.dispatch_jobs} trivial jobs through one serve", _notes(ctx),
                         figures, raw={"runs": raw})


# What a trivial job's time is made of, from serve's results (medians over a run's jobs).
LAYERS = {
    "step": "per job: the `true` step as the worker timed it (exec through the namespace wrapper)",
    "inspect": "per job: inspecting its artifacts (none here: a scan of the empty cwd)",
    "rest": "per job: the rest of its totalMs (request, log, TMPDIR, result, judging)",
    "between": f"per job: slot time outside its totalMs ({PARALLELISM} slots ÷ jobs/s − totalMs: dispatch, "
               f"protocol, listeners)",
}


def _serve(ctx: Context, run_dir, cwd) -> ServeRun:
    session = ServeSession(ctx.archpool.launcher, run_dir,
                           ["--arch", ctx.options.arch, f"-j{PARALLELISM}", *ctx.archpool.no_cache()])
    try:
        jobs = ctx.options.dispatch_jobs
        elapsed = pump(session, jobs, cwd)
        latencies = accept_latencies(session, LATENCY_SUBMITS if not ctx.options.smoke else 50, cwd, jobs + 1)
        results = [r["job"] for r in session.wait_results(jobs, timeout_s=60)]
    finally:
        if session.proc.poll() is None:
            session.shutdown()
    rate = jobs / elapsed
    return ServeRun(rate, latencies, session.ready_s, _layers(results, rate))


def _layers(jobs: List[dict], rate: float) -> Dict[str, float]:
    step, inspect, rest, total = [], [], [], []
    for job in jobs:
        phases = {p["name"]: p["ms"] for p in job["phases"]}
        step.append(phases.get("command", 0))
        inspect.append(phases.get("inspect", 0))
        # totalMs runs from the job's dispatch to its outcome: the queue is not in it
        rest.append(max(0, job["totalMs"] - sum(phases.values())))
        total.append(job["totalMs"])
    between = max(0.0, PARALLELISM / rate * 1000 - statistics.median(total))
    return {"step": statistics.median(step), "inspect": statistics.median(inspect), "rest": statistics.median(rest),
            "between": between}


def _memory(ctx: Context, cwd) -> float:
    run_dir = ctx.folder("serve", "memory")
    session = ServeSession(ctx.archpool.launcher, run_dir,
                           ["--arch", ctx.options.arch, f"-j{PARALLELISM}", *ctx.archpool.no_cache()])
    try:
        pump(session, ctx.options.serve_jobs, cwd)
        peak = session.peak_rss_kib()
    finally:
        if session.proc.poll() is None:
            session.shutdown(timeout_s=600)
    ctx.discard(run_dir)
    if peak is None:
        raise BenchError("could not read serve's peak RSS from /proc")
    ctx.say(f"[serve] {ctx.options.serve_jobs} jobs: coordinator peak RSS {peak / 1024:.1f} MiB")
    return peak / 1024


def _percentile(values: List[float], pct: int) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def _notes(ctx: Context) -> str:
    o = ctx.options
    return (
        f"One `archpool serve --stdio --arch {o.arch} -j{PARALLELISM} -q` per round, driven over its client "
        f"protocol (docs/service.md) by the bench itself, so no client library is measured. Each round submits "
        f"{o.dispatch_jobs} command jobs `\"argv\": [\"true\"]` as fast as serve takes them (each with a "
        f"variable of its own, since identical jobs in flight share one build) and times the first submit to "
        f"the last result; xargs execs `true` {o.dispatch_jobs} times at -P{PARALLELISM}. Then "
        f"{LATENCY_SUBMITS if not o.smoke else 50} submits one at a time, each after the previous one's "
        f"`accepted`, give the submit → accepted latency on the warm pool. The per-job layers are medians over "
        f"a round's jobs of their report fields: the step's time as the worker measured it, inspection, and "
        f"the rest of `totalMs` past the queue. The memory figure is VmHWM of serve's JVM after "
        f"{o.serve_jobs} jobs were submitted at once and all ran.")
