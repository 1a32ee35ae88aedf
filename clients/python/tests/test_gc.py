"""A pool garbage-collected without ``shutdown()`` shuts its ``serve`` down, as ``ProcessPoolExecutor`` does: the
jobs it took finish (a future that was kept gets its result), then ``serve`` exits."""

import gc
import threading
from pathlib import Path
from typing import List

import archpool
from procs import cmdline, wait_gone


def start(tmp_path: Path, name: str) -> archpool.Pool:
    return archpool.Pool(jobs=1, platform="cuda", arch="90", no_toolchain_check=True, no_cache=True, quiet=True,
                         log_dir=str(tmp_path / name / "logs"), stderr=str(tmp_path / f"{name}.stderr"))


def test_pools_dropped_without_shutdown_end_their_serve(archpool_home: Path, tmp_path: Path) -> None:
    serves: List[int] = []

    def use_and_drop(n: int) -> None:
        pool = start(tmp_path, f"pool{n}")
        serves.append(pool.info.pid)

    starts = [threading.Thread(target=use_and_drop, args=(n,)) for n in range(3)]  # at once: a faster test
    for thread in starts:
        thread.start()
    for thread in starts:
        thread.join()
    assert len(serves) == 3
    gc.collect()

    left = wait_gone(serves, timeout=15)
    assert not left, "a dropped pool's serve still runs: " + "; ".join(f"{pid} {cmdline(pid)}" for pid in left)


def test_a_kept_future_of_a_dropped_pool_gets_its_result_and_then_serve_ends(archpool_home: Path,
                                                                            tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    serves: List[int] = []

    def submit_and_drop() -> archpool.JobFuture:
        pool = start(tmp_path, "pool")
        serves.append(pool.info.pid)
        return pool.submit_command(["sh", "-c", "sleep 0.3; echo built > out.txt"], cwd=str(job_dir),
                                   artifacts=["out.txt"])

    future = submit_and_drop()
    gc.collect()

    result = future.result(timeout=60)
    assert result.succeeded and (job_dir / "out.txt").read_text() == "built\n"
    assert not wait_gone(serves, timeout=15), "the dropped pool's serve still runs once its job ended"
