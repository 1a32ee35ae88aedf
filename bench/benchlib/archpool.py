"""archpool as a contender: manifests, `archpool build` runs and what their reports and job logs say."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from .errors import BenchError, UsageError
from .processes import Finished, quick, run_timed

BUILD_HINT = "mvn -B -q package -DskipTests"


@dataclass(frozen=True)
class Build:
    """One finished `archpool build`: its cost and its JSON report."""

    finished: Finished
    report: dict

    def jobs(self) -> List[dict]:
        return self.report["jobs"]

    def started_workers(self) -> List[dict]:
        """pool.workerEvents entries of workers that started, in order."""
        return [e for e in self.report["pool"]["workerEvents"] if e["event"] == "started"]


class Archpool:
    """The launcher bin/archpool of a distribution."""

    def __init__(self, launcher: Path):
        if not (launcher.is_file() and launcher.stat().st_mode & 0o111):
            raise UsageError(
                f"archpool is not built: {launcher} does not exist or is not executable. Build the "
                f"distribution first with '{BUILD_HINT}' in the repository root, or point --archpool at "
                f"another bin/archpool.")
        self.launcher = launcher

    def version(self) -> str:
        return quick([self.launcher, "--version"])[1].strip()

    def check_arch(self, arch: str) -> None:
        """Stops with archpool's own explanation when `arch` is not a CUDA architecture it accepts."""
        status, said = quick([self.launcher, "arch", "--platform", "cuda", "--arch", arch])
        if status != 0:
            raise UsageError(f"--arch {arch}: {said.strip() or 'archpool arch could not run'}")

    def _build_help(self) -> str:
        if not hasattr(self, "_help"):
            self._help = quick([self.launcher, "build", "--help"])[1]
        return self._help

    def has_cache(self) -> bool:
        """Whether this distribution has the build cache (`--no-cache`); older ones, measured with
        --archpool or --compare-archpool, do not."""
        return "--no-cache" in self._build_help()

    def has_order(self) -> bool:
        """Whether this distribution orders its queue by the jobs' recorded durations (`--order`); older ones
        take the manifest's order."""
        return "--order" in self._build_help()

    def no_cache(self) -> List[str]:
        """`--no-cache` where the distribution has a cache: every section but the cache's measures building."""
        return ["--no-cache"] if self.has_cache() else []

    def build(self, manifest: Path, run_dir: Path, flags: Sequence[str], *,
              env: Optional[Mapping[str, str]] = None, watch: Optional[Callable[[int], None]] = None,
              cache: Optional[Path] = None) -> Build:
        """Runs `archpool build MANIFEST -q FLAGS` with its report, logs and console output in `run_dir`;
        a build that is not a complete success is a BenchError. Without `cache` the build cache is off."""
        report = run_dir / "report.json"
        output = run_dir / "archpool.out"
        cache_flags = ["--cache", cache] if cache is not None else self.no_cache()
        argv = [self.launcher, "build", manifest, "-q", "--report", report, "--log-dir", run_dir / "logs",
                *cache_flags, *flags]
        finished = run_timed(argv, output, env=env, watch=watch)
        if finished.status != 0:
            raise BenchError(f"archpool build {manifest} exited with status {finished.status}; "
                             f"its output is in {output}")
        build = Build(finished, json.loads(report.read_text()))
        _require_success(build, report)
        return build


def _require_success(build: Build, report: Path) -> None:
    not_ok = [job["id"] for job in build.jobs() if job["outcome"] != "succeeded"]
    if not_ok:
        raise BenchError(f"archpool: {len(not_ok)} jobs did not succeed (first: {not_ok[0]}); see {report}")


def write_manifest(path: Path, jobs: Sequence[Mapping]) -> int:
    """Writes a version-1 manifest of `jobs`; returns its size in bytes."""
    text = json.dumps({"version": 1, "jobs": list(jobs)}, separators=(",", ":"))
    path.write_text(text)
    return len(text.encode())


def command_jobs(count: int, argv: Sequence[str], cwd: Path, prefix: str = "job") -> List[Dict]:
    """`count` command jobs running `argv` in `cwd` (keep it empty: a command job inspects what its cwd
    gained while it ran)."""
    return [{"id": f"{prefix}{i}", "kind": "command", "argv": list(argv), "cwd": str(cwd)}
            for i in range(1, count + 1)]


def logged_commands(log: Path) -> List[str]:
    """The command lines a job ran, from its log: one `$ <argv joined by spaces>` line per command."""
    return [line[2:] for line in log.read_text(errors="replace").splitlines() if line.startswith("$ ")]
