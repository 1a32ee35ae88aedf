#!/usr/bin/env python3
"""Build a Python package's CUDA kernels with archpool instead of an in-process ProcessPoolExecutor.

The package used to compile its kernels like this (GT4Py and FlashInfer do much the same):

    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        futures = {pool.submit(compile_kernel, spec): spec for spec in specs}
        for future in as_completed(futures):
            libs[futures[future].name] = future.result()

where each ``compile_kernel`` worked out the GPU architecture by itself, and fell back to the compiler's
default when it could not see a GPU. Here the same loop runs on ``archpool.Pool``: the architecture is resolved
once when the pool starts (``--arch``, else ``CUDAARCHS``, else detection; archpool refuses to guess), each spec
is submitted as soon as it is known, archpool's workers build it and check that what they built holds that
architecture, and each future's result says where the code is and for which architectures.

    python3 build_kernels.py [--archpool PATH] [--arch LIST] [-j N] [--out DIR] [--only NAME,…] [--demo-failure]

archpool is ``--archpool``, else what ``archpool.find_archpool()`` finds (``$ARCHPOOL_HOME``, a wheel's bundled
distribution, the PATH). Exit status: 0 when every kernel was built, 1 when any was not, 2 for a usage mistake
(here or archpool's), 3 when archpool could not resolve the architecture, 130 when interrupted.
Standard library only (and the archpool package); Python 3.9+.
"""

import argparse
import concurrent.futures as cf
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"

try:
    import archpool
except ImportError:  # run from a checkout: the package is beside this folder
    sys.path.insert(0, str(HERE.parent))
    import archpool


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

    @classmethod
    def of(cls, name: str, result: "archpool.JobResult") -> "KernelResult":
        return cls(name=name, outcome=result.outcome, seconds=result.timings.total_ms / 1000.0, worker=result.worker,
                   libraries={a.path: list(a.archs) for a in result.artifacts if a.archs},
                   message=result.message, log_tail=result.log_tail, log_path=result.log_path)


def submit_all(pool: "archpool.Pool", out_dir: Path, demo_failure: bool,
               only: Optional[List[str]]) -> Dict["cf.Future[archpool.JobResult]", str]:
    """One cmake job per specialisation, plus a command job (nvcc straight to a fat binary): each submitted at once,
    as a package submits a kernel when it first needs it."""
    wanted = _kernel_names(demo_failure)
    if only:
        unknown = sorted(set(only) - set(wanted))
        if unknown:
            raise UsageMistake(f"no kernel named {', '.join(unknown)}; the kernels are {', '.join(wanted)}")
    chosen = [name for name in wanted if not only or name in only]
    futures: Dict["cf.Future[archpool.JobResult]", str] = {}
    for spec in SPECS:
        if spec.name in chosen:
            futures[pool.submit_cmake(KERNELS / "pointwise", build_dir=out_dir / spec.name, id=spec.name,
                                      defines={"POINTWISE_OP": spec.op, "POINTWISE_DTYPE": spec.dtype},
                                      build_type="Release", timeout="10m")] = spec.name
    # A command job's default artifacts are the files written under its cwd while it ran, and jobs run in
    # parallel: give it a folder of its own and name its output, so it is not credited with other jobs' files.
    if "softmax" in chosen:
        softmax_dir = out_dir / "softmax"
        softmax_dir.mkdir(parents=True, exist_ok=True)
        futures[pool.submit_command(
            ["nvcc", "{offload-arch-flags}", "--fatbin", str(KERNELS / "softmax.cu"), "-o", "softmax.fatbin"],
            cwd=softmax_dir, artifacts=["softmax.fatbin"], id="softmax", timeout="10m")] = "softmax"
    if "broken" in chosen:
        broken_dir = out_dir / "broken"
        broken_dir.mkdir(parents=True, exist_ok=True)
        (broken_dir / "broken.cu").write_text("__global__ void broken(float *x) { x[0] = undeclared_value; }\n")
        futures[pool.submit_command(["nvcc", "{offload-arch-flags}", "-c", "broken.cu", "-o", "broken.o"],
                                    cwd=broken_dir, artifacts=["broken.o"], id="broken")] = "broken"
    return futures


class UsageMistake(Exception):
    """A mistake in this script's own arguments (exit status 2)."""


def _kernel_names(demo_failure: bool) -> List[str]:
    return [s.name for s in SPECS] + ["softmax"] + (["broken"] if demo_failure else [])


def collect(futures: Dict["cf.Future[archpool.JobResult]", str]) -> List[KernelResult]:
    """The futures' results as they complete, one line each; what ``future.result()`` used to return."""
    kernels = []
    width = max(len(name) for name in futures.values())
    for future in cf.as_completed(futures):
        name = futures[future]
        try:
            kernel = KernelResult.of(name, future.result())
        except archpool.BuildError as e:  # the job ran and did not succeed: e.result says why
            kernel = KernelResult.of(name, e.result)
        print_kernel(kernel, width)
        kernels.append(kernel)
    return kernels


def print_kernel(k: KernelResult, width: int) -> None:
    head = f"  {k.name:<{width}}  {k.outcome:<9}  {k.seconds:6.1f}s  {k.worker or '-':<5}"
    if k.ok:
        found = ", ".join(f"{Path(p).name} [{' '.join(a)}]" for p, a in k.libraries.items()) or "no GPU code found"
        print(f"{head}  {found}", flush=True)
        return
    print(f"{head}  {k.message}")
    tail = (k.log_tail or "").splitlines()
    shown = [line for line in tail if "error" in line.lower()][:5] or tail[-5:]
    for line in shown:
        print(f"      | {line}")
    if k.log_path:
        print(f"      log: {k.log_path}")
    sys.stdout.flush()


def build_kernels(launcher: Optional[str], out_dir: Path, jobs: int, arch: Optional[str], demo_failure: bool = False,
                  only: Optional[List[str]] = None) -> Tuple[int, List[KernelResult]]:
    """The replacement for the ProcessPoolExecutor block: (exit status, one result per kernel)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    report = out_dir / "report.json"
    if report.exists():
        report.unlink()  # never read a previous build's report
    logs = out_dir / ".archpool" / "logs"
    with archpool.Pool(jobs=jobs, platform="cuda", arch=arch, archpool=launcher, log_dir=str(logs), report=str(report),
                       quiet=True) as pool:
        t = pool.target
        source = t.source + (", " + t.detail if t.detail else "")
        print(f"kernels built by archpool {pool.info.archpool_version} for {t.platform} {';'.join(t.archs)}"
              f" ({source})", flush=True)
        futures = submit_all(pool, out_dir, demo_failure, only)
        kernels = collect(futures)
    built = sum(k.ok for k in kernels)
    print(f"{built} of {len(kernels)} kernels built (report: {pool.bye.report if pool.bye else report})")
    return (0 if built == len(kernels) else 1), kernels


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archpool", help="the archpool launcher (default: $ARCHPOOL_HOME/bin/archpool, the bundled"
                                           " one, else archpool on the PATH)")
    parser.add_argument("--arch", help="CUDA architectures, e.g. 90 or '80;90' (default: $CUDAARCHS, else the GPU"
                                       " archpool detects here)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel builds, like ProcessPoolExecutor's max_workers (default: CPU count)")
    parser.add_argument("--out", type=Path, default=HERE / "build",
                        help="folder for the build folders, logs and report (default: build/ beside this script)")
    parser.add_argument("--only", help="build only these kernels, comma-separated (default: all)")
    parser.add_argument("--demo-failure", action="store_true",
                        help="add a kernel with a compile error, to see how a failure is reported")
    args = parser.parse_args(argv)
    only = [name.strip() for name in args.only.split(",") if name.strip()] if args.only else None
    try:
        status, _ = build_kernels(args.archpool, args.out.resolve(), args.jobs, args.arch, args.demo_failure, only)
        return status
    except archpool.ArchpoolNotFoundError as e:
        return _fail(f"{e}; or pass --archpool PATH", 2)
    except UsageMistake as e:
        return _fail(str(e), 2)
    except archpool.ServeError as e:  # archpool stopped before it built: 2 usage, 3 no architecture
        return _fail(str(e), e.exit_code if e.exit_code in (2, 3) else 1)
    except KeyboardInterrupt:  # the pool cancelled every job as the with-block ended
        return _fail("interrupted; every kernel build was cancelled", 130)


def _fail(message: str, status: int) -> int:
    print(f"build_kernels: {message}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
