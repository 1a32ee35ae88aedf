"""What every section gets (the options, archpool, the work folder) and what it hands back."""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple, TypeVar

from .archpool import Archpool
from .figures import Figure
from .options import Options

T = TypeVar("T")

# Lanes (--lanes) say things at the same time; each line or table comes out whole.
_SAY = threading.Lock()


@dataclass(frozen=True)
class Context:
    """The run's options, the archpool under test, the work folder and the CPUs this process may use."""

    options: Options
    archpool: Archpool
    work: Path
    cores: int

    def folder(self, *parts: str) -> Path:
        """A new folder under the work folder."""
        path = self.work.joinpath(*parts)
        path.mkdir(parents=True)
        return path

    def discard(self, path: Path) -> None:
        """Removes what a run left once its figures are taken (builds, thousands of logs), unless --keep."""
        if not self.options.keep:
            shutil.rmtree(path)

    @staticmethod
    def say(text: str) -> None:
        """Progress on stdout, as it happens."""
        with _SAY:
            print(text, flush=True)


@dataclass
class SectionResult:
    """A section's figures, the markdown around its table, and its raw per-run numbers for the JSON."""

    name: str
    title: str
    notes: str
    figures: List[Figure]
    extra: str = ""
    raw: Dict = field(default_factory=dict)
    elapsed_s: float = 0.0


def interleaved(contenders: Sequence[T], runs: int) -> Iterator[Tuple[int, T]]:
    """(round, contender) in the order they run: each round starts one contender later than the one before
    (A B C D, then B C D A, …), so that drift of the machine spreads evenly over the contenders."""
    for round_index in range(runs):
        shift = round_index % len(contenders)
        for contender in [*contenders[shift:], *contenders[:shift]]:
            yield round_index + 1, contender
