"""Figures: one measured number each (a median of samples, or derived from other medians), with its unit
and, where the issue sets one, its target."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

# How each unit is printed; "ratio" and "calls" are plain numbers.
_FORMATS = {
    "s": "{:.2f} s",
    "ms": "{:.0f} ms",
    "MiB": "{:.1f} MiB",
    "KiB": "{:.0f} KiB",
    "jobs/s": "{:.0f} jobs/s",
    "ratio": "{:.2f}",
    "calls": "{:.0f}",
}
_SYMBOLS = {"<=": "≤", ">=": "≥", "==": "="}


def plural(count: int, noun: str) -> str:
    """'1 run', '3 runs'."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def format_value(unit: str, value: float) -> str:
    """Milliseconds below 10 get two decimals (a latency of 0.3 ms is not "0 ms")."""
    if unit == "ms" and abs(value) < 10:
        return f"{value:.2f} ms"
    return _FORMATS[unit].format(value)


@dataclass(frozen=True)
class Target:
    """A bound the figure should meet: `op` is <=, >= or ==."""

    op: str
    limit: float

    def met(self, value: float) -> bool:
        if self.op == "<=":
            return value <= self.limit
        if self.op == ">=":
            return value >= self.limit
        return value == self.limit

    def text(self, unit: str) -> str:
        suffix = "" if unit in ("ratio", "calls") else " " + unit
        return f"{_SYMBOLS[self.op]} {self.limit:g}{suffix}"


def at_most(limit: float) -> Target:
    return Target("<=", limit)


def at_least(limit: float) -> Target:
    return Target(">=", limit)


def exactly(limit: float) -> Target:
    return Target("==", limit)


@dataclass(frozen=True)
class Figure:
    """One row of a section's table. `samples` are the measurements `value` is the median of (empty for a
    figure derived from other figures); `sample_name` says what one is (run, worker, build)."""

    key: str
    label: str
    unit: str
    value: float
    samples: Tuple[float, ...] = ()
    sample_name: str = "run"
    target: Optional[Target] = None

    def sample_count(self) -> str:
        """How many samples there are, in words: '3 runs', '1 build'."""
        return plural(len(self.samples), self.sample_name)

    @property
    def met(self) -> Optional[bool]:
        return None if self.target is None else self.target.met(self.value)

    def to_json(self) -> Dict:
        data = {"label": self.label, "unit": self.unit, "value": self.value}
        if self.samples:
            data.update({"min": min(self.samples), "max": max(self.samples), "samples": list(self.samples),
                         "sampleName": self.sample_name})
        if self.target is not None:
            data.update({"target": {"op": self.target.op, "limit": self.target.limit}, "met": self.met})
        return data


def median_of(key: str, label: str, unit: str, samples: Sequence[float], *, sample_name: str = "run",
              target: Optional[Target] = None) -> Figure:
    """A figure whose value is the median of `samples`."""
    return Figure(key, label, unit, statistics.median(samples), tuple(samples), sample_name, target)


def derived(key: str, label: str, unit: str, value: float, target: Optional[Target] = None) -> Figure:
    """A figure computed from other figures (a ratio of medians, a limit): no samples of its own."""
    return Figure(key, label, unit, value, target=target)
