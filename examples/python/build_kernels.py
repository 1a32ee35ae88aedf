#!/usr/bin/env python3
"""Build a Python package's CUDA kernels with archpool instead of an in-process ProcessPoolExecutor.

The package used to compile its kernels like this (GT4Py and FlashInfer do much the same):

    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        libs = dict(zip(names, pool.map(compile_kernel, specs)))

where each ``compile_kernel`` worked out the GPU architecture by itself, and fell back to the compiler's
default when it could not see a GPU. Here the same specs become an archpool manifest: the architecture is
resolved once (``--arch``, else ``CUDAARCHS``, else detection; archpool refuses to guess), archpool's workers
run the builds, check that what they built holds that architecture, and write a JSON report
(docs/report-schema.md) that this script reads back in place of the futures' results.

    python3 build_kernels.py [--archpool PATH] [--arch LIST] [-j N] [--out DIR] [--only NAME,…] [--demo-failure]

archpool is ``--archpool``, else ``$ARCHPOOL``, else ``archpool`` on the PATH. Exit status: 0 when every kernel
was built, 1 when any was not, 2 for a usage mistake (here or archpool's), 3 when archpool could not resolve the
architecture, 130 when the build was interrupted. Standard library only; Python 3.9+.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, NoReturn, Optional, Tuple

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"

#: The report schema version this script understands (archpool bumps it only for incompatible changes).
REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class KernelSpec:
    """One specialisation: what a ProcessPoolExecutor task used to receive."""

    name: str
    op: str
    dtype: str


SPECS = [
    KernelSpec("axpy_f32", "axpy", "float"),
    KernelSpec("axpy_f64", "axpy", "double"),
    KernelSpec("scale_f32", "scale", "float"),
]


@dataclass
class KernelResult:
    """What the package needs back for one kernel: did it build, where is the code, and if not, why."""

    name: str
    outcome: str
    seconds: float
    worker: Optional[str]
    libraries: Dict[str, List[str]]  # path -> GPU architectures found in it
    message: Optional[str]
    log_tail: Optional[str]
    log_path: Optional[str]

    @property
    def ok(self) -> bool:
        return self.outcome == "succeeded"


def write_manifest(out_dir: Path, specs: List[KernelSpec], demo_failure: bool,
                   only: Optional[List[str]] = None) -> Path:
    """One cmake job per specialisation, plus a command job (nvcc straight to a fat binary)."""
    jobs = []
    for spec in specs:
        # Each kernel's build folder is <out>/<id> (defaults.buildRoot below).
        jobs.append({
            "id": spec.name,
            "kind": "cmake",
            "sourceDir": str(KERNELS / "pointwise"),
            "defines": {"POINTWISE_OP": spec.op, "POINTWISE_DTYPE": spec.dtype},
        })
    # A command job's default artifacts are the files written under its cwd while it ran, and jobs run in
    # parallel: give it a folder of its own and name its output, so it is not credited with other jobs' files.
    softmax_dir = out_dir / "softmax"
    softmax_dir.mkdir(parents=True, exist_ok=True)
    jobs.append({
        "id": "softmax",
        "kind": "command",
        "cwd": str(softmax_dir),
        "argv": ["nvcc", "{offload-arch-flags}", "--fatbin", str(KERNELS / "softmax.cu"), "-o", "softmax.fatbin"],
        "artifacts": ["softmax.fatbin"],
    })
    if demo_failure:
        broken_dir = out_dir / "broken"
        broken_dir.mkdir(parents=True, exist_ok=True)
        (broken_dir / "broken.cu").write_text("__global__ void broken(float *x) { x[0] = undeclared_value; }\n")
        jobs.append({
            "id": "broken",
            "kind": "command",
            "cwd": str(broken_dir),
            "argv": ["nvcc", "{offload-arch-flags}", "-c", "broken.cu", "-o", "broken.o"],
            "artifacts": ["broken.o"],
        })
    if only:
        unknown = sorted(set(only) - {j["id"] for j in jobs})
        if unknown:
            die(f"no kernel named {', '.join(unknown)}; the kernels are {', '.join(j['id'] for j in jobs)}")
        jobs = [j for j in jobs if j["id"] in only]
    manifest = out_dir / "archpool.json"
    manifest.write_text(json.dumps({
        "version": 1,
        "defaults": {"buildType": "Release", "timeout": "10m", "buildRoot": "."},
        "jobs": jobs,
    }, indent=2) + "\n")
    return manifest


def die(message: str, status: int = 2) -> NoReturn:
    print(f"build_kernels: {message}", file=sys.stderr)
    sys.exit(status)


def find_archpool(given: Optional[str]) -> str:
    candidate = given or os.environ.get("ARCHPOOL") or "archpool"
    found = shutil.which(candidate)
    if found is None:
        die(f"archpool not found as {candidate!r}: pass --archpool PATH or set ARCHPOOL"
            " (e.g. orchestrator/target/archpool/bin/archpool after 'mvn package')")
    return found


def run_archpool(archpool: str, manifest: Path, report: Path, jobs: int, arch: Optional[str]) -> int:
    """Runs the build; archpool's own progress lines go straight to this process's stdout and stderr."""
    command = [archpool, "build", str(manifest), "--platform", "cuda", "-j", str(jobs), "--report", str(report)]
    if arch:
        command += ["--arch", arch]
    print("$ " + " ".join(command), flush=True)
    return subprocess.run(command, check=False).returncode


def read_report(report: Path) -> dict:
    with open(report, encoding="utf-8") as f:
        data = json.load(f)
    version = data.get("schemaVersion")
    if version != REPORT_SCHEMA_VERSION:
        die(f"{report} has report schema version {version!r}; this script reads version {REPORT_SCHEMA_VERSION}",
            1)
    return data


def results(report: dict) -> List[KernelResult]:
    out = []
    for job in report["jobs"]:
        libraries = {a["path"]: a["archs"] for a in job["artifacts"] if a["archs"]}
        out.append(KernelResult(
            name=job["id"],
            outcome=job["outcome"],
            seconds=job["totalMs"] / 1000.0,
            worker=job.get("worker"),          # absent when the job never reached a worker
            libraries=libraries,
            message=job.get("message"),        # absent on success
            log_tail=job.get("logTail"),
            log_path=job.get("logPath"),
        ))
    return out


def print_summary(report: dict, kernels: List[KernelResult], report_path: Path) -> None:
    r = report["resolution"]
    source = r["source"] + (", " + r["detail"] if "detail" in r else "")
    print(f"\nkernels built by archpool {report['archpoolVersion']} for {r['platform']} {';'.join(r['archs'])}"
          f" ({source})")
    width = max(len(k.name) for k in kernels)
    for k in kernels:
        head = f"  {k.name:<{width}}  {k.outcome:<9}  {k.seconds:6.1f}s  {k.worker or '-':<5}"
        if k.ok:
            found = ", ".join(f"{Path(p).name} [{' '.join(a)}]" for p, a in k.libraries.items()) or "no GPU code found"
            print(f"{head}  {found}")
        else:
            print(f"{head}  {k.message}")
            tail = (k.log_tail or "").splitlines()
            shown = [line for line in tail if "error" in line.lower()][:5] or tail[-5:]
            for line in shown:
                print(f"      | {line}")
            if k.log_path:
                print(f"      log: {k.log_path}")
    built = sum(k.ok for k in kernels)
    print(f"{built} of {len(kernels)} kernels built (report: {report_path})")


def build_kernels(archpool: str, out_dir: Path, jobs: int, arch: Optional[str], demo_failure: bool = False,
                  only: Optional[List[str]] = None) -> Tuple[int, List[KernelResult]]:
    """The replacement for the ProcessPoolExecutor block: (exit status, one result per kernel)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = write_manifest(out_dir, SPECS, demo_failure, only)
    report_path = out_dir / "report.json"
    if report_path.exists():
        report_path.unlink()  # never read a previous build's report
    status = run_archpool(archpool, manifest, report_path, jobs, arch)
    if not report_path.exists():
        # 2: bad usage or manifest, 3: no architecture; archpool has said why on stderr.
        print(f"build_kernels: archpool exited with status {status} and wrote no report", file=sys.stderr)
        return (status or 1), []
    report = read_report(report_path)
    kernels = results(report)
    print_summary(report, kernels, report_path)
    if report["exitCode"] == 130:
        return 130, kernels
    return (0 if all(k.ok for k in kernels) else 1), kernels


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archpool", help="the archpool launcher (default: $ARCHPOOL, else archpool on the PATH)")
    parser.add_argument("--arch", help="CUDA architectures, e.g. 90 or '80;90' (default: $CUDAARCHS, else the GPU"
                                       " archpool detects here)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel builds, like ProcessPoolExecutor's max_workers (default: CPU count)")
    parser.add_argument("--out", type=Path, default=HERE / "build",
                        help="folder for the manifest, build folders and report (default: build/ beside this script)")
    parser.add_argument("--only", help="build only these kernels, comma-separated (default: all)")
    parser.add_argument("--demo-failure", action="store_true",
                        help="add a kernel with a compile error, to see how a failure is reported")
    args = parser.parse_args(argv)

    archpool = find_archpool(args.archpool)
    only = [name.strip() for name in args.only.split(",") if name.strip()] if args.only else None
    status, _ = build_kernels(archpool, args.out.resolve(), args.jobs, args.arch, args.demo_failure, only)
    return status


if __name__ == "__main__":
    sys.exit(main())
