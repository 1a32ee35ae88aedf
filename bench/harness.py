#!/usr/bin/env python3
"""bench/run: benchmarks archpool against the compile pools users already have and writes a markdown
report (docs/performance.md) and its raw figures as JSON. `bench/run --help` lists the options."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Dict, List, Sequence

from benchlib import machine
from benchlib.archpool import Archpool
from benchlib.context import Context, SectionResult
from benchlib.errors import BenchError, UsageError
from benchlib.options import Options, parse
from benchlib.processes import stop_all
from benchlib.report import Baseline, RunInfo, duration, figure_table, to_json, to_markdown
from benchlib.sections import compile as compile_section
from benchlib.sections import cache, dispatch, isolation, memory, outputs, probes, schedule, serve, start

REPO = Path(__file__).resolve().parent.parent

SECTION_RUNNERS: Dict[str, Callable[[Context], SectionResult]] = {
    "compile": compile_section.run,
    "dispatch": dispatch.run,
    "start": start.run,
    "memory": memory.run,
    "probes": probes.run,
    "outputs": outputs.run,
    "serve": serve.run,
    "isolation": isolation.run,
    "cache": cache.run,
    "schedule": schedule.run,
}

# The order in which lanes (--lanes) take the sections: the longest first (by a --smoke run on 2 cores), so that no
# long one starts last.
LANE_ORDER = ("compile", "cache", "schedule", "dispatch", "serve", "memory", "probes", "isolation", "start", "outputs")

# Tools each section runs besides archpool (nvcc: archpool's toolchain check asks it about the target).
SECTION_TOOLS = {
    "compile": ("cmake", "ninja", "nvcc", "xargs"),
    "dispatch": ("nvcc", "ninja", "xargs"),
    "start": ("nvcc",),
    "memory": ("nvcc",),
    "probes": ("nvcc",),
    "outputs": (),
    "serve": ("nvcc", "xargs"),
    "isolation": ("nvcc",),
    "cache": ("cmake", "ninja", "nvcc"),
    "schedule": ("ninja", "nvcc", "xargs"),
}


def _interrupted(signum, frame):
    """SIGTERM ends the run like Ctrl-C: contenders stopped, work folder removed, exit 130."""
    raise KeyboardInterrupt


@contextmanager
def _uninterruptible():
    """Ignores Ctrl-C and SIGTERM meanwhile, so that a second one cannot cut the clean-up short."""
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _work_folder(options: Options) -> Path:
    """The given --work folder (created; must be empty) or a fresh temporary one."""
    work = options.work or Path(tempfile.gettempdir()) / "archpool-bench-*"
    if any(c.isspace() for c in str(work)):
        raise UsageError(f"the work folder {work} must not contain white space: the compile section reads "
                         f"command lines back from archpool's job logs, which join arguments with spaces")
    if options.work is None:
        return Path(tempfile.mkdtemp(prefix="archpool-bench-"))
    if work.exists() and (not work.is_dir() or any(work.iterdir())):
        raise UsageError(f"--work {work} must be an empty folder or not exist")
    work.mkdir(parents=True, exist_ok=True)
    return work


def _check_writable(path: Path, option: str) -> None:
    """Stops before anything is measured when an output file could not be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot create its folder ({e.strerror})") from None
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder; give a file")
    if not os.access(path.parent, os.W_OK):
        raise UsageError(f"{option} {path}: its folder is not writable")


def _remove(work: Path, options: Options) -> None:
    if options.keep:
        print(f"kept the work folder {work}", flush=True)
    else:
        shutil.rmtree(work, ignore_errors=True)


def _run_section(ctx: Context, name: str) -> SectionResult:
    ctx.say(f"== {name}")
    started = time.perf_counter()
    result = SECTION_RUNNERS[name](ctx)
    result.elapsed_s = time.perf_counter() - started
    ctx.say(f"== {name} took {duration(result.elapsed_s)}\n" + figure_table(result.figures, None) + "\n")
    return result


def _run_sections(ctx: Context) -> List[SectionResult]:
    """The chosen sections, in the report's order: run one after the other, or --lanes at a time (each lane
    taking the next section of LANE_ORDER when it is free). The first section that fails stops the others: every
    contender is stopped and none starts."""
    names = [s for s in SECTION_RUNNERS if s in ctx.options.only]
    if ctx.options.lanes == 1:
        return [_run_section(ctx, name) for name in names]
    with ThreadPoolExecutor(max_workers=ctx.options.lanes, thread_name_prefix="lane") as lanes:
        started = {name: lanes.submit(_run_section, ctx, name) for name in LANE_ORDER if name in names}
        futures = [started[name] for name in names]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()  # raises the first failure
        except BaseException:
            for future in futures:
                future.cancel()
            stop_all()  # the other lanes' contenders end, and their next one does not start
            raise
        return [future.result() for future in futures]


def run(options: Options) -> int:
    started = time.perf_counter()
    baseline = Baseline.load(options.baseline) if options.baseline else None
    archpool = Archpool(options.archpool)
    machine.require_tools(tool for name in options.only for tool in SECTION_TOOLS[name])
    archpool.check_arch(options.arch)
    if "schedule" in options.only:
        schedule.nvcc_arch_flags(options.arch)  # a UsageError before anything is measured
    _check_writable(options.out, "--out")
    _check_writable(options.json, "--json")
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    work = _work_folder(options)
    try:
        facts = machine.describe(archpool.version())
        print(f"bench/run: {options.command_line()}\n" + "\n".join(f"{k}: {v}" for k, v in facts.items()),
              flush=True)
        results = _run_sections(Context(options, archpool, work, machine.cores()))
    finally:
        with _uninterruptible():
            stop_all()
            _remove(work, options)
    info = RunInfo(options, date, time.perf_counter() - started, facts)
    options.out.write_text(to_markdown(info, results, baseline))
    options.json.write_text(to_json(info, results))
    print(f"wrote {options.out} and {options.json}; the whole run took {duration(info.elapsed_s)}", flush=True)
    return 0


def main(argv: Sequence[str]) -> int:
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        options = parse(argv, REPO)
        return run(options)
    except UsageError as e:
        print(f"bench/run: {e}", file=sys.stderr)
        return e.exit_status
    except BenchError as e:
        hint = "" if options.keep else " (the work folder is removed: run again with --keep to read the logs)"
        print(f"bench/run: {e}{hint}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        print("bench/run: interrupted; every contender was stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
