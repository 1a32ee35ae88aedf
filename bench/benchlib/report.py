"""The outputs: the markdown report and the JSON of raw figures, and reading an earlier JSON as baseline."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

from .context import SectionResult
from .errors import UsageError
from .figures import Figure, format_value
from .options import SECTIONS, Options

JSON_FORMAT = 1


@dataclass(frozen=True)
class Baseline:
    """The figures of an earlier run (its --json output), shown as 'before'."""

    label: str
    date: str
    command: str
    values: Dict[str, float]

    @staticmethod
    def load(path: Path) -> "Baseline":
        try:
            data = json.loads(path.read_text())
            values = {key: figure["value"] for key, figure in data["figures"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise UsageError(f"--baseline {path}: not the --json output of bench/run ({e})") from None
        return Baseline(data.get("label") or path.name, data.get("date", "?"), data.get("command", "?"), values)


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


@dataclass(frozen=True)
class RunInfo:
    """What the report says about the run as a whole."""

    options: Options
    date: str
    elapsed_s: float
    machine: Mapping[str, str]


def to_json(info: RunInfo, results: Sequence[SectionResult]) -> str:
    """The raw figures: every figure by key (value, unit, samples, target), and each section's raw runs."""
    opts = info.options
    data = {
        "format": JSON_FORMAT,
        "label": opts.label,
        "date": info.date,
        "command": opts.command_line(),
        "elapsedS": info.elapsed_s,
        "machine": dict(info.machine),
        "sizes": {"runs": opts.runs, "projects": opts.projects, "jobs": opts.jobs,
                  "dispatchJobs": opts.dispatch_jobs, "queuedJobs": opts.queued_jobs,
                  "workerStarts": opts.worker_starts, "outputJobs": opts.output_jobs, "serveJobs": opts.serve_jobs, "arch": opts.arch, "freshConfigure": opts.fresh_configure,
                  "scheduleKernels": opts.schedule_kernels, "longKernel": opts.long_kernel,
                  "scheduleRuns": opts.schedule_runs, "lanes": opts.lanes},
        "sections": {r.name: {"title": r.title, "elapsedS": r.elapsed_s, "raw": r.raw} for r in results},
        "figures": {f.key: f.to_json() for r in results for f in r.figures},
    }
    return json.dumps(data, indent=2) + "\n"


def to_markdown(info: RunInfo, results: Sequence[SectionResult], baseline: Optional[Baseline]) -> str:
    opts = info.options
    parts = ["# archpool performance", _preamble(info, baseline), _machine(info.machine)]
    for result in results:
        number = SECTIONS.index(result.name) + 1
        parts.append(f"## {number}. {result.title}")
        parts.append(result.notes)
        parts.append(figure_table(result.figures, baseline))
        if result.extra:
            parts.append(result.extra)
        parts.append(f"Reproduce: `{opts.reproduce(result.name)}` (this section took {duration(result.elapsed_s)})")
    if opts.notes is not None:
        parts.append(opts.notes.read_text().strip())
    return "\n\n".join(parts) + "\n"


def _preamble(info: RunInfo, baseline: Optional[Baseline]) -> str:
    opts = info.options
    lines = [f"Measured on {info.date} by `{opts.command_line()}`, run from the repository root; the whole run "
             f"took {duration(info.elapsed_s)}." + (f" Label: {opts.label}." if opts.label else "")]
    if baseline:
        lines.append(f"'before' is the run labelled '{baseline.label}', measured on {baseline.date} by "
                     f"`{baseline.command}`; 'after' is this run.")
    lines.append(
        "Each figure is the median of its samples, with their min and max; a ratio compares the medians of "
        "contenders measured in the same run. Runs of different contenders are interleaved (round 1: A B C D, "
        "round 2: B C D A, …) so that drift of the machine spreads evenly over them. Figures are reported, not "
        "asserted: a target not met is a finding, not a failed run.")
    if opts.lanes > 1:
        lines.append(f"**{opts.lanes} sections ran at a time** (`--lanes {opts.lanes}`): sections side by side "
                     f"disturb each other's figures. This run checks that every section works; compare only runs "
                     f"made with one lane.")
    return "\n\n".join(lines)


def _machine(machine: Mapping[str, str]) -> str:
    rows = "\n".join(f"| {name} | {value} |" for name, value in machine.items())
    return "## Machine\n\n| | |\n|---|---|\n" + rows


def figure_table(figures: Sequence[Figure], baseline: Optional[Baseline]) -> str:
    """A section's table: one row per figure; with a baseline, its value as 'before' next to 'after'."""
    head = ["figure", *(["before", "after"] if baseline else ["value"]), "min", "max", "of", "target", "met"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 3) + "---|---|"]
    lines += ["| " + " | ".join(_cells(f, baseline)) + " |" for f in figures]
    return "\n".join(lines)


def _cells(figure: Figure, baseline: Optional[Baseline]) -> List[str]:
    def fmt(value: Optional[float]) -> str:
        return "–" if value is None else format_value(figure.unit, value)
    before = [fmt(baseline.values.get(figure.key))] if baseline else []
    count = figure.sample_count() if figure.samples else "–"
    spread = [fmt(min(figure.samples)), fmt(max(figure.samples))] if len(figure.samples) > 1 else ["–", "–"]
    target = figure.target.text(figure.unit) if figure.target else "–"
    met = {None: "–", True: "yes", False: "**no**"}[figure.met]
    return [figure.label, *before, f"**{fmt(figure.value)}**", *spread, count, target, met]
