#!/usr/bin/env python3
"""A GT4Py-shaped compile runner over archpool: ``submit(task) -> Future``, ``shutdown()``.

GT4Py (and libraries like it) generate one CMake project per program variant and hand it to a compile step that
runs on an executor. ``ArchpoolRunner`` is that executor: each task becomes one archpool ``cmake`` job, built by a
worker that cannot see a GPU, for the architecture resolved once when the runner started, and checked to hold
it. A task is anything with ``name``, ``source_dir``, ``build_dir`` and ``defines`` (GT4Py's own compilable
project objects fit behind a two-line shim); the future's result is an :class:`archpool.JobResult` whose
``artifacts`` are the built libraries, and a task that does not build raises :class:`archpool.BuildError`
with the compiler's last lines. No GT4Py needed: ``python3 gt4py_runner.py --arch 90`` builds two variants.
"""

import argparse
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple, Optional

HERE = Path(__file__).resolve().parent

try:
    import archpool
except ImportError:  # run from a checkout: the package is beside this folder
    sys.path.insert(0, str(HERE.parent))
    import archpool


class ArchpoolRunner:
    """The compile executor of a GT4Py-style workflow, backed by one ``archpool.Pool`` (or one shared with others:
    pass ``pool=archpool.connect(path)``)."""

    def __init__(self, pool: Optional["archpool.Pool"] = None, **pool_options: Any) -> None:
        """``pool_options`` are ``archpool.Pool``'s (``arch="90"``, ``jobs=8``, ``verify="strict"``…), used when no
        ``pool`` is given; the runner then owns the pool it starts."""
        self._pool = pool if pool is not None else archpool.Pool(**pool_options)

    @property
    def target(self) -> "archpool.Target":
        return self._pool.target

    def submit(self, task: Any) -> "Future[archpool.JobResult]":
        """Builds ``task`` (``name``, ``source_dir``, ``build_dir``, ``defines``); returns at once."""
        return self._pool.submit_cmake(task.source_dir, build_dir=task.build_dir, defines=dict(task.defines),
                                       id=task.name, build_type="Release")

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def __enter__(self) -> "ArchpoolRunner":
        return self

    def __exit__(self, kind: Any, error: Optional[BaseException], traceback: Any) -> None:
        self.shutdown(wait=True, cancel_futures=error is not None)


class _Task(NamedTuple):
    """What a GT4Py-style backend hands its compile step (the demo's stand-in for its project objects)."""

    name: str
    source_dir: Path
    build_dir: Path
    defines: dict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", help="CUDA architectures (default: $CUDAARCHS, else the GPU detected here)")
    parser.add_argument("--out", type=Path, default=HERE / "build" / "gt4py", help="build folders' parent")
    args = parser.parse_args()
    tasks = [_Task(f"{op}_f32", HERE / "kernels" / "pointwise", args.out.resolve() / op,
                   {"POINTWISE_OP": op, "POINTWISE_DTYPE": "float"}) for op in ("axpy", "scale")]
    with ArchpoolRunner(platform="cuda", arch=args.arch, quiet=True) as runner:
        futures = [runner.submit(task) for task in tasks]
        for task, future in zip(tasks, futures):
            try:
                libraries = [a.path for a in future.result().artifacts if a.archs]
                print(f"{task.name}: {', '.join(libraries)} for {';'.join(runner.target.archs)}")
            except archpool.BuildError as e:
                print(f"{task.name}: {e}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
