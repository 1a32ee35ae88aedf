"""bench/run's command line: parsing, defaults (full run or --smoke) and the per-section reproduce command."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, Tuple

from .errors import UsageError

SECTIONS = ("compile", "dispatch", "start", "memory", "probes", "outputs", "serve", "isolation", "cache", "schedule")

# Sizes of the full run, and of --smoke (a short run for CI, about 75 s on 2 cores); an option given explicitly wins over both.
FULL_SIZES = {"runs": 3, "projects": 48, "dispatch_jobs": 5000, "queued_jobs": 10000, "worker_starts": 20,
              "output_jobs": 100000, "serve_jobs": 100000, "cached_jobs": 500, "schedule_kernels": 12,
              "long_kernel": 40, "schedule_runs": 1, "stand_ins": "off", "lanes": 1}
SMOKE_SIZES = {"runs": 1, "projects": 2, "dispatch_jobs": 100, "queued_jobs": 200, "worker_starts": 3,
               "output_jobs": 100, "serve_jobs": 100, "cached_jobs": 20, "schedule_kernels": 2, "long_kernel": 8,
               "schedule_runs": 1, "stand_ins": "on", "lanes": 2}

# The options that change what a section measures, for its "Reproduce:" line.
SECTION_OPTIONS = {
    "compile": ("runs", "projects", "jobs", "arch", "fresh_configure"),
    "dispatch": ("runs", "dispatch_jobs", "arch"),
    "start": ("worker_starts", "arch"),
    "memory": ("queued_jobs", "arch"),
    "probes": (),
    "outputs": ("output_jobs", "arch", "compare_archpool"),
    "serve": ("runs", "dispatch_jobs", "serve_jobs", "arch"),
    "isolation": ("runs", "worker_starts", "arch"),
    "cache": ("projects", "jobs", "cached_jobs", "arch", "stand_ins"),
    "schedule": ("schedule_runs", "schedule_kernels", "long_kernel", "arch", "stand_ins"),
}

DESCRIPTION = """\
Benchmarks archpool against the compile pools users already have (xargs -P, ninja -j, a Python
ProcessPoolExecutor) and writes a markdown report with the machine, the command line, and per
section a table of medians (with min and max of the runs), the target and whether it is met.
Contenders are interleaved round by round so that machine drift spreads evenly. Figures are
reported, never asserted: the exit status is 0 whatever they are, 1 when a contender failed or
built the wrong thing, 2 for bad options or a missing tool, 130 when interrupted.

Sections: compile (real CUDA CMake projects), dispatch (trivial jobs per second), start (worker
launch to hello), memory (coordinator and worker RSS), probes (detection tools run per build),
outputs (coordinator memory for a large build with every output, in a 200 MiB heap), serve (a
long-running serve over its client protocol: submit latency, jobs per second, memory), isolation
(what --isolate-devices on adds to a worker's start and a step), cache (builds restored from the build
cache against cold ones, and no hit across architectures), schedule (small nvcc jobs and one long one
listed last: archpool's longest-first queue against FIFO pools, and the ideal makespan).
"""


@dataclass(frozen=True)
class Options:
    """Everything a run needs, with defaults filled in; `given` names the options set on the command line."""

    archpool: Path
    runs: int
    projects: int
    jobs: int
    dispatch_jobs: int
    queued_jobs: int
    worker_starts: int
    output_jobs: int
    serve_jobs: int
    cached_jobs: int
    schedule_kernels: int
    long_kernel: int
    schedule_runs: int
    stand_ins: bool
    lanes: int
    compare_archpool: Optional[Path]
    arch: str
    work: Optional[Path]
    keep: bool
    out: Path
    json: Path
    baseline: Optional[Path]
    notes: Optional[Path]
    label: Optional[str]
    only: Tuple[str, ...]
    smoke: bool
    fresh_configure: bool
    argv: Tuple[str, ...]
    given: Tuple[str, ...]

    def command_line(self) -> str:
        """The command that produced this run, as typed from the repository root."""
        return shlex.join(["bench/run", *self.argv])

    def reproduce(self, section: str) -> str:
        """The command that measures only `section` the same way."""
        words = ["bench/run", "--only", section]
        if self.smoke:
            words.append("--smoke")
        for name in SECTION_OPTIONS[section]:
            if name not in self.given:
                continue
            flag = "--" + name.replace("_", "-")
            value = getattr(self, name)
            if name == "stand_ins":
                words.extend([flag, "on" if value else "off"])
            else:
                words.extend([flag] if isinstance(value, bool) else [flag, str(value)])
        return shlex.join(words)


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line (a UsageError), not a usage block."""

    def error(self, message: str):
        raise UsageError(f"{message} (see bench/run --help)")


def _count(text: str) -> int:
    """A positive integer option value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not positive")
    return value


def _sections(text: str) -> Tuple[str, ...]:
    """The --only list: known section names, comma-separated."""
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name not in SECTIONS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown section '{unknown[0]}' (sections: {', '.join(SECTIONS)})")
    return names


def _parser() -> _Parser:
    p = _Parser(prog="bench/run", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = "default: %s, --smoke: %s"
    p.add_argument("--archpool", type=Path, metavar="PATH",
                   help="the launcher to measure (default: orchestrator/target/archpool/bin/archpool "
                        "of this repository)")
    p.add_argument("--runs", type=_count, metavar="N",
                   help="timed runs of each contender in compile and dispatch (" + size % (3, 1)
                        + "; the schedule section's are --schedule-runs)")
    p.add_argument("--projects", type=_count, metavar="N",
                   help="CUDA CMake projects in the compile section (" + size % (48, 2) + ")")
    p.add_argument("--jobs", type=_count, default=2, metavar="N",
                   help="parallelism of every compile contender (-jN, -PN, max_workers=N; default: 2)")
    p.add_argument("--dispatch-jobs", type=_count, metavar="N",
                   help="trivial jobs per dispatch run (" + size % (5000, 100) + ")")
    p.add_argument("--queued-jobs", type=_count, metavar="N",
                   help="jobs queued in the coordinator for its peak RSS (" + size % (10000, 200) + ")")
    p.add_argument("--worker-starts", type=_count, metavar="N",
                   help="workers started one after the other (" + size % (20, 3) + ")")
    p.add_argument("--output-jobs", type=_count, metavar="N",
                   help="trivial jobs of the outputs section's build (" + size % (100000, 100) + ")")
    p.add_argument("--serve-jobs", type=_count, metavar="N",
                   help="trivial jobs submitted at once to one serve for its peak RSS (" + size % (100000, 100)
                        + ")")
    p.add_argument("--cached-jobs", type=_count, metavar="N",
                   help="command jobs restored from the cache in the cache section (" + size % (500, 20) + ")")
    p.add_argument("--schedule-kernels", type=_count, metavar="N",
                   help="small nvcc jobs listed before the long one in the schedule section ("
                        + size % (12, 2) + ")")
    p.add_argument("--long-kernel", type=_count, metavar="N",
                   help="template instantiations in the schedule section's long kernel; 40 compile in about 5 times "
                        "a small kernel's time (" + size % (40, 8) + ")")
    p.add_argument("--schedule-runs", type=_count, metavar="N",
                   help="timed runs of each contender in the schedule section, whose run of 10 builds of real "
                        "nvcc jobs takes minutes on 2 cores (" + size % (1, 1) + ")")
    p.add_argument("--stand-ins", choices=("on", "off"),
                   help="on: the cache and schedule sections run command jobs that stand in for nvcc (sleep, copy "
                        "or echo, with the same manifests, flags and checks) so that only the compile section "
                        "builds real CUDA (" + size % ("off", "on") + ")")
    p.add_argument("--lanes", type=_count, metavar="N",
                   help="sections that run at the same time, each in a lane of its own (" + size % (1, 2)
                        + "). Sections side by side disturb each other's figures: more than one lane checks that "
                          "every section works, it does not measure archpool")
    p.add_argument("--compare-archpool", type=Path, metavar="PATH",
                   help="another bin/archpool (e.g. a distribution built from main) whose outputs section is "
                        "measured next to this one's, as ratios")
    p.add_argument("--arch", default="90", metavar="A", help="CUDA architecture to build for (default: 90)")
    p.add_argument("--fresh-configure", action="store_true",
                   help="start every timed build folder of the compile section empty (each configure of the "
                        "baselines then identifies the compiler, about 4 s per project; archpool may seed its "
                        "own) instead of seeding them all from one reference configure")
    p.add_argument("--work", type=Path, metavar="DIR",
                   help="where projects, builds and logs go; must be empty or not exist (default: a fresh "
                        "temporary folder); removed at the end unless --keep")
    p.add_argument("--keep", action="store_true", help="keep the work folder and every build and log in it")
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="the markdown report (default: docs/performance.md of this repository)")
    p.add_argument("--json", type=Path, metavar="FILE",
                   help="the raw figures as JSON (default: the --out file with the suffix .json, "
                        "e.g. docs/performance.json)")
    p.add_argument("--baseline", type=Path, metavar="FILE.json",
                   help="the --json output of an earlier run: every table gets a 'before' column "
                        "next to 'after'")
    p.add_argument("--notes", type=Path, metavar="FILE.md",
                   help="markdown appended to the report as it is: what limits the figures and what was changed "
                        "to improve them (default: bench/notes.md of this repository, if there is one)")
    p.add_argument("--label", metavar="TEXT", help="a name for this run, e.g. 'after', recorded in the JSON")
    p.add_argument("--only", type=_sections, metavar="SECTION[,SECTION]",
                   help="run only these sections (" + ", ".join(SECTIONS) + "; default: all)")
    p.add_argument("--smoke", action="store_true",
                   help="a short run for CI (about 75 s on 2 cores): --projects 2 --runs 1 --dispatch-jobs 100 "
                        "--queued-jobs 200 --worker-starts 3 --output-jobs 100 --serve-jobs 100 --cached-jobs 20 "
                        "--schedule-kernels 2 --long-kernel 8 --schedule-runs 1 --stand-ins on --lanes 2, everything else "
                        "the same")
    return p


def _given(namespace: argparse.Namespace) -> Tuple[str, ...]:
    """Options set on the command line (their value differs from argparse's default)."""
    defaults = vars(_parser().parse_args([]))
    return tuple(name for name, value in vars(namespace).items() if value != defaults[name])


def _notes(given: Optional[Path], repo: Path) -> Optional[Path]:
    """The --notes file, which must exist, or bench/notes.md when there is one."""
    if given is not None:
        if not given.is_file():
            raise UsageError(f"--notes {given} is not a file; give a markdown file to append to the report")
        return given.absolute()
    default = repo / "bench" / "notes.md"
    return default if default.is_file() else None


def parse(argv: Sequence[str], repo: Path) -> Options:
    """Parses bench/run's arguments; paths that default into the repository are resolved against `repo`."""
    ns = _parser().parse_args(list(argv))
    given = _given(ns)
    sizes = SMOKE_SIZES if ns.smoke else FULL_SIZES
    for name, value in sizes.items():
        if getattr(ns, name) is None:
            setattr(ns, name, value)
    if not ns.arch.strip():
        raise UsageError("--arch must not be empty (see bench/run --help)")
    out = (ns.out or repo / "docs" / "performance.md").absolute()
    return Options(
        archpool=(ns.archpool or repo / "orchestrator" / "target" / "archpool" / "bin" / "archpool").absolute(),
        runs=ns.runs, projects=ns.projects, jobs=ns.jobs, dispatch_jobs=ns.dispatch_jobs,
        queued_jobs=ns.queued_jobs, worker_starts=ns.worker_starts, output_jobs=ns.output_jobs, serve_jobs=ns.serve_jobs,
        cached_jobs=ns.cached_jobs, schedule_kernels=ns.schedule_kernels, long_kernel=ns.long_kernel,
        schedule_runs=ns.schedule_runs, stand_ins=ns.stand_ins == "on", lanes=ns.lanes,
        compare_archpool=ns.compare_archpool.absolute() if ns.compare_archpool else None, arch=ns.arch,
        work=ns.work.absolute() if ns.work else None, keep=ns.keep, out=out,
        json=(ns.json or out.with_suffix(".json")).absolute(),
        baseline=ns.baseline.absolute() if ns.baseline else None,
        notes=_notes(ns.notes, repo), label=ns.label,
        only=ns.only or SECTIONS, smoke=ns.smoke, fresh_configure=ns.fresh_configure,
        argv=tuple(argv), given=given,
    )
