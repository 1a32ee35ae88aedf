"""Section 6, outputs: the coordinator's peak RSS and heap for a large build that writes every output (report,
metrics, trace, JUnit XML, HTML) in a 200 MiB heap; optionally next to another distribution's (e.g. main's)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult
from ..errors import BenchError
from ..figures import Figure, at_most, derived, median_of
from ..processes import run_timed
from .memory import PeakWatcher

HEAP_MIB = 200
OUTPUTS = ("--report", "r.json", "--metrics", "m.prom", "--trace", "t.json", "--junit", "j.xml", "--html", "h.html")
# A serial-GC line: "GC(12) Pause Young (Allocation Failure) 150M->80M(200M) 5.123ms"
_GC_LINE = re.compile(r"GC\(\d+\) Pause .*? (\d+)M->(\d+)M\((\d+)M\)")


def run(ctx: Context) -> SectionResult:
    jobs = ctx.options.output_jobs
    folder = ctx.folder("outputs")
    manifest = folder / "manifest.json"
    write_manifest(manifest, command_jobs(jobs, ["true"], ctx.folder("outputs", "empty")))
    new = _build(ctx, ctx.archpool.launcher, manifest, folder / "this")
    if new["status"] != 0:
        raise BenchError(f"archpool build of {jobs} jobs with every output exited with status {new['status']} "
                         f"in a {HEAP_MIB} MiB heap; its output is in {new['output']}")
    ctx.say(f"[outputs] {jobs} jobs, every output, -Xmx{HEAP_MIB}m: peak RSS {new['rssMiB']:.1f} MiB, "
            f"peak heap {new['heapMiB']:.1f} MiB, {new['wallS']:.1f} s")
    figures: List[Figure] = [
        median_of("outputs.rss-peak", f"coordinator peak RSS, {jobs} jobs, every output", "MiB", [new["rssMiB"]],
                  sample_name="build"),
        derived("outputs.heap-peak", "its peak heap in use (before a collection)", "MiB", new["heapMiB"],
                at_most(HEAP_MIB)),
        derived("outputs.heap-live", "its most heap reachable (after a full collection)", "MiB", new["liveMiB"]),
        derived("outputs.heap-committed", "its most heap committed", "MiB", new["committedMiB"]),
        derived("outputs.wall", "its wall time", "s", new["wallS"]),
    ]
    raw: Dict = {"jobs": jobs, "this": new}
    compare = ctx.options.compare_archpool
    if compare is not None:
        old = _build(ctx, compare, manifest, folder / "other")
        raw["other"] = old
        said = "" if old["status"] == 0 else f", exit {old['status']}" + (
            " (OutOfMemoryError)" if old["outOfMemory"] else "")
        ctx.say(f"[outputs] {compare}: peak RSS {old['rssMiB']:.1f} MiB, peak heap {old['heapMiB']:.1f} MiB{said}")
        figures += [
            derived("outputs.other-rss-peak", f"--compare-archpool's peak RSS{said}", "MiB", old["rssMiB"]),
            derived("outputs.other-heap-peak", "its peak heap in use", "MiB", old["heapMiB"]),
            derived("outputs.other-heap-live", "its most heap reachable (after a full collection)", "MiB",
                    old["liveMiB"]),
            derived("outputs.rss-ratio", "peak RSS, --compare-archpool / this", "ratio", old["rssMiB"] / new["rssMiB"]),
            derived("outputs.heap-ratio", "peak heap, --compare-archpool / this", "ratio",
                    old["heapMiB"] / new["heapMiB"]),
        ]
    ctx.discard(folder)
    return SectionResult("outputs", "Outputs of a large build", _notes(ctx), figures, raw=raw)


def _build(ctx: Context, launcher: Path, manifest: Path, run_dir: Path) -> Dict:
    """One build of `manifest` with every output in run_dir, heap capped; what it cost and how it ended."""
    run_dir.mkdir(parents=True)
    gc_log = run_dir / "gc.log"
    env = dict(os.environ, ARCHPOOL_JAVA_OPTS=f"-Xmx{HEAP_MIB}m -Xlog:gc:file={gc_log}")
    argv = [launcher, "build", manifest, "-q", "--mode", "thread", "-j2", "--platform", "cuda", "--arch",
            ctx.options.arch, "--no-toolchain-check", "--log-dir", run_dir / "logs",
            *[a if a.startswith("--") else run_dir / a for a in OUTPUTS]]
    watcher = PeakWatcher()
    output = run_dir / "archpool.out"
    finished = run_timed(argv, output, env=env, watch=watcher)
    if watcher.peak_kib is None or not watcher.was_coordinator:
        raise BenchError(f"could not read {launcher}'s coordinator JVM's VmHWM; its output is in {output}")
    said = output.read_text(errors="replace")
    heap, live, committed = _heap_mib(gc_log)
    return {"status": finished.status, "wallS": finished.wall_s, "rssMiB": watcher.peak_kib / 1024,
            "heapMiB": heap, "liveMiB": live, "committedMiB": committed,
            "outOfMemory": "OutOfMemoryError" in said,
            "output": str(output)}


def _heap_mib(gc_log: Path) -> Tuple[float, float, float]:
    """From a -Xlog:gc file (serial collector): the most heap in use just before any collection (garbage
    included: it follows how far the collector let the heap grow), the most still in use after a full
    collection (what was reachable then) and the most heap committed."""
    before: Optional[int] = None
    live = 0
    committed = 0
    for line in gc_log.read_text(errors="replace").splitlines():
        m = _GC_LINE.search(line)
        if m:
            before = max(before or 0, int(m.group(1)))
            committed = max(committed, int(m.group(3)))
            if "Pause Full" in line:
                live = max(live, int(m.group(2)))
    if before is None:
        raise BenchError(f"no collection in {gc_log}: cannot tell the peak heap")
    return float(before), float(live), float(committed)


def _notes(ctx: Context) -> str:
    other = "" if ctx.options.compare_archpool is None else (
        f" The same build by `{ctx.options.compare_archpool}` (`--compare-archpool`) is measured after it, "
        f"and the ratios compare the two.")
    return (
        f"`archpool build` of {ctx.options.output_jobs} trivial command jobs (`true`) in `--mode thread` at "
        f"`-j2`, with every output (`--report --metrics --trace --junit --html`), under "
        f"`ARCHPOOL_JAVA_OPTS=-Xmx{HEAP_MIB}m`. Peak RSS is the coordinator JVM's `VmHWM`, read every 20 ms; "
        f"the heap figures come from `-Xlog:gc` (serial collector): in use before a collection (garbage included: it "
        f"follows how far the collector let the heap grow), reachable after a full collection (what the build "
        f"needed then), and committed. Memory is in MiB.{other}")
