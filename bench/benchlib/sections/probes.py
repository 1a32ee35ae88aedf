"""Section 5, probes per build: spy detection tools on the PATH count how often each runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List

from ..archpool import command_jobs, write_manifest
from ..context import Context, SectionResult
from ..figures import Figure, derived, exactly

# (jobs, -j) of each build.
CASES = ((10, 2), (200, 8), (200, 16))
# --smoke: the same question with fewer worker JVMs to start
SMOKE_CASES = ((4, 2), (8, 4))
TOOLS = ("rocminfo", "amdgpu-arch", "nvidia-smi")
# What nvidia-smi costs per call on an H200 (docs/gpu-acceptance.md), and it opens the GPU each time.
NVIDIA_SMI_MS = (163, 246)

# Each spy logs "<tool> | <who ran it>", then behaves like the real tool: nvidia-smi prints
# what it printed on an H200 (as ProbeSpyIT), rocminfo and amdgpu-arch fail as without an AMD GPU.
SPIES = {
    "nvidia-smi": "echo '0, GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8, 9.0, NVIDIA H200'\n",
    "rocminfo": "echo 'ROCk module is NOT loaded, possibly no GPU devices'; exit 1\n",
    "amdgpu-arch": "echo 'Failed to get device count' >&2; exit 1\n",
}
# Who ran it: anything a worker starts has the device-visibility variables set (to empty), while the bench
# runs the coordinator with them unset (a job runs in a PID namespace of its own, so its parent's command
# line would not tell).
SPY_HEADER = ("#!/bin/sh\nif [ \"${{CUDA_VISIBLE_DEVICES+set}}\" = set ]; then who=worker; else who=coordinator; fi\n"
              "echo \"{tool} | $who\" >> \"$SPY_LOG\"\n")


def _write_spies(bin_dir: Path) -> None:
    for tool, body in SPIES.items():
        script = bin_dir / tool
        script.write_text(SPY_HEADER.format(tool=tool) + body)
        script.chmod(0o755)


def _environment(bin_dir: Path, log: Path) -> Dict[str, str]:
    """The spies first on the PATH, and nothing that would decide the target before detection: no
    CUDAARCHS/HIPARCHS, no device-visibility variable of this shell."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")}
    env.update({"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "SPY_LOG": str(log),
                "CUDAARCHS": "", "HIPARCHS": ""})
    return env


def run(ctx: Context) -> SectionResult:
    bin_dir = ctx.folder("probes", "bin")
    _write_spies(bin_dir)
    empty = ctx.folder("probes", "empty")
    figures: List[Figure] = []
    rows, from_workers, raw = [], 0, []
    for jobs, parallelism in (SMOKE_CASES if ctx.options.smoke else CASES):
        case = f"{jobs}x{parallelism}"
        folder = ctx.folder("probes", case)
        log = folder / "spy.log"
        log.touch()
        manifest = folder / "manifest.json"
        write_manifest(manifest, command_jobs(jobs, ["true"], empty))
        build = ctx.archpool.build(manifest, folder, [f"-j{parallelism}"], env=_environment(bin_dir, log))
        calls = log.read_text().splitlines()
        counts = {tool: sum(1 for line in calls if line.startswith(tool + " |")) for tool in TOOLS}
        from_workers += sum(1 for line in calls if line.endswith("| worker"))
        workers = build.report["pool"]["workers"]
        ctx.say(f"[probes] {jobs} jobs at -j{parallelism}: "
                + ", ".join(f"{tool} {n}" for tool, n in counts.items()))
        figures += [derived(f"probes.{case}.{tool}", f"{jobs} jobs at -j{parallelism}: {tool} calls", "calls",
                            n, exactly(1)) for tool, n in counts.items()]
        rows.append(_comparison_row(jobs, parallelism, workers, counts))
        raw.append({"jobs": jobs, "parallelism": parallelism, "workers": workers, "calls": counts})
    figures.append(derived("probes.from-workers", "calls from a worker, all builds", "calls", from_workers,
                           exactly(0)))
    return SectionResult("probes", "Probes per build", _notes(), figures, extra=_comparison(rows),
                         raw={"builds": raw})


def _comparison_row(jobs: int, parallelism: int, workers: int, counts: Dict[str, int]) -> str:
    """archpool's calls next to what a probe per worker and a probe per job would have run."""
    def design(probing_processes: int) -> str:
        low, high = (probing_processes * ms / 1000 for ms in NVIDIA_SMI_MS)
        return (f"{probing_processes * len(TOOLS)} ({probing_processes} nvidia-smi: "
                f"{low:.1f}–{high:.1f} s on an H200)")
    return (f"| {jobs} jobs at -j{parallelism} | {workers} | {sum(counts.values())} "
            f"({counts['nvidia-smi']} nvidia-smi) | {design(workers)} | {design(jobs)} |")


def _comparison(rows: List[str]) -> str:
    return ("What other designs would have run (every tool once per probing process):\n\n"
            "| build | workers | archpool ran | one probe per worker | one probe per job |\n"
            "|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
            f"An nvidia-smi call takes {NVIDIA_SMI_MS[0]}–{NVIDIA_SMI_MS[1]} ms on an H200 and opens the GPU "
            f"each time (measured: [gpu-acceptance.md](gpu-acceptance.md)).")


def _notes() -> str:
    return (
        "Spy `nvidia-smi`, `rocminfo` and `amdgpu-arch` scripts first on the PATH of `archpool build` (no "
        "`--arch`; `CUDAARCHS` and `HIPARCHS` empty) log every call and whether a worker made it (anything a "
        "worker starts has the device-visibility variables set to empty; the coordinator runs with them unset): "
        "nvidia-smi prints what the real one printed on an H200, rocminfo and amdgpu-arch fail as on a machine "
        "without an AMD GPU. Builds of trivial command jobs (`true`) with several job and worker counts; "
        "the target is exactly one call per tool per build, none from a worker.")
