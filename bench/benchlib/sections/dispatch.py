"""Section 2, dispatch overhead: trivial jobs per second, archpool against xargs and ninja, at two parallelisms."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional

from .. import ninja
from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult, interleaved
from ..errors import BenchError
from ..figures import Figure, at_least, derived, median_of, plural
from ..processes import run_timed

PARALLELISMS = (2, 8)
# Target of archpool's median rate over xargs's at the same parallelism; its rate over ninja's is shown too.
RATIO_TARGET = 0.3
TOOLS = ("archpool", "xargs", "ninja")


@dataclass(frozen=True)
class Contender:
    tool: str  # one of TOOLS
    parallelism: int

    @property
    def key(self) -> str:
        return f"{self.tool}-{'P' if self.tool == 'xargs' else 'j'}{self.parallelism}"

    @property
    def label(self) -> str:
        return f"{self.tool} {'-P' if self.tool == 'xargs' else '-j'}{self.parallelism}"


CONTENDERS = [Contender(tool, p) for p in PARALLELISMS for tool in TOOLS]


@dataclass(frozen=True)
class Measured:
    wall_s: float
    steady_rate: Optional[float]  # jobs/s between the first and the last job start (archpool only)


def run(ctx: Context) -> SectionResult:
    opts = ctx.options
    folder = ctx.folder("dispatch")
    empty = ctx.folder("dispatch", "empty")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(opts.dispatch_jobs, ["true"], empty))
    lines = folder / "lines.txt"
    lines.write_text("".join(f"{i}\n" for i in range(1, opts.dispatch_jobs + 1)))
    rates: Dict[str, List[float]] = defaultdict(list)
    steady: Dict[str, List[float]] = defaultdict(list)
    raw = []
    for round_no, contender in interleaved(CONTENDERS, opts.runs):
        run_dir = ctx.folder("dispatch", f"round{round_no}-{contender.key}")
        if contender.tool == "archpool":
            measured = _archpool(ctx, manifest, run_dir, contender.parallelism)
        elif contender.tool == "xargs":
            measured = _xargs(lines, run_dir, contender.parallelism)
        else:
            measured = _ninja(opts.dispatch_jobs, run_dir, contender.parallelism)
        rate = opts.dispatch_jobs / measured.wall_s
        rates[contender.key].append(rate)
        if measured.steady_rate is not None:
            steady[contender.key].append(measured.steady_rate)
        raw.append({"round": round_no, "contender": contender.key, "wallS": measured.wall_s,
                    "jobsPerS": rate, "steadyJobsPerS": measured.steady_rate})
        ctx.say(f"[dispatch] round {round_no}/{opts.runs} {contender.label}: {rate:.0f} jobs/s"
                + (f" ({measured.steady_rate:.0f} jobs/s steady)" if measured.steady_rate else ""))
        ctx.discard(run_dir)
    return SectionResult("dispatch", f"Dispatch overhead: {opts.dispatch_jobs} trivial jobs",
                         _notes(ctx), _figures(rates, steady), raw={"runs": raw})


def _archpool(ctx: Context, manifest, run_dir, parallelism: int) -> Measured:
    build = ctx.archpool.build(manifest, run_dir, ["--arch", ctx.options.arch, f"-j{parallelism}"])
    starts = [job["startMs"] for job in build.jobs()]
    span_s = (max(starts) - min(starts)) / 1000
    return Measured(build.finished.wall_s, (len(starts) - 1) / span_s if span_s > 0 else None)


def _xargs(lines, run_dir, parallelism: int) -> Measured:
    """xargs execs `true` (argv exactly ["true"], no shell) once per line of `lines`: with -I the line only
    replaces a {} that the command does not have."""
    finished = run_timed(["xargs", "-P", str(parallelism), "-I", "{}", "-a", lines, "true"], run_dir / "xargs.out")
    if finished.status != 0:
        raise BenchError(f"xargs -P{parallelism} exited with status {finished.status}; see {run_dir}")
    return Measured(finished.wall_s, None)


def _ninja(count: int, run_dir, parallelism: int) -> Measured:
    """ninja -jN over a build.ninja of `count` edges, each `exec true`: ninja runs every command with /bin/sh -c, and
    `exec` makes the shell exec the program `true` (without it, dash would run its builtin and start no program)."""
    ninja.write(run_dir, [ninja.Edge(f"job{i}", "exec true") for i in range(1, count + 1)])
    finished = ninja.run(run_dir, parallelism)
    if finished.status != 0:
        raise BenchError(f"ninja -j{parallelism} exited with status {finished.status}; see {run_dir}")
    return Measured(finished.wall_s, None)


def _figures(rates, steady) -> List[Figure]:
    figures = [median_of(f"dispatch.rate.{c.key}", f"{c.label}: jobs/s, whole command", "jobs/s", rates[c.key])
               for c in CONTENDERS]
    for p in PARALLELISMS:
        archpool, xargs, nin = Contender("archpool", p), Contender("xargs", p), Contender("ninja", p)
        mine = statistics.median(rates[archpool.key])
        figures.append(derived(f"dispatch.ratio.j{p}", f"{archpool.label} / {xargs.label} (jobs/s)", "ratio",
                               mine / statistics.median(rates[xargs.key]), at_least(RATIO_TARGET)))
        figures.append(derived(f"dispatch.ratio-ninja.j{p}", f"{archpool.label} / {nin.label} (jobs/s)", "ratio",
                               mine / statistics.median(rates[nin.key])))
    figures += [median_of(f"dispatch.steady.{c.key}", f"{c.label}: jobs/s, first to last job start", "jobs/s",
                          steady[c.key]) for c in CONTENDERS if steady[c.key]]
    return figures


def _notes(ctx: Context) -> str:
    n = ctx.options.dispatch_jobs
    return (
        f"{n} command jobs `\"argv\": [\"true\"]` (no shell), all with the same empty `cwd`, run by "
        f"`archpool build --arch {ctx.options.arch} -jN -q` against `xargs -PN -I {{}} -a FILE true`, which "
        f"execs `true` {n} times, and `{ninja.command()}` over a generated `build.ninja` of "
        f"{n} edges (one rule; each edge's output a stamp nothing writes, so every edge runs) whose command is "
        f"`exec true`: ninja runs each command with `/bin/sh -c`, so a ninja job is a shell that execs `true`, "
        f"at N = {' and '.join(map(str, PARALLELISMS))}; "
        f"{plural(ctx.options.runs, 'run')} of each, interleaved. The rate is jobs over the whole command's wall "
        f"time, which for archpool includes starting its JVM, resolving the target, the toolchain check and "
        f"starting the workers. The steady rate is archpool's own, from its report: jobs started per second "
        f"between the first and the last job start (`jobs[].startMs`).")
