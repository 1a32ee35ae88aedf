"""``os.fork()`` with a live pool: the pool is the parent's. The child may not use it (a clear PoolClosedError;
``shutdown()`` does nothing), the parent's jobs go on, and the child holds none of the descriptors to ``serve``: a
child that outlives a killed parent does not keep ``serve`` and its jobs running."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Set

import pytest

import archpool
from conftest import CLIENT
from procs import Sleeper, cmdline, kill_all, run_in_fork, wait_gone


def test_a_forked_child_cannot_use_its_parents_pool_and_the_parents_jobs_go_on(
        fast_pool: archpool.Pool, job_dir: Path) -> None:
    before = fast_pool.submit_command(["sleep", "0.5"], cwd=str(job_dir), id="before")
    parent = os.getpid()

    start = time.monotonic()
    report = run_in_fork({
        "submit_command": lambda: fast_pool.submit_command(["true"], cwd=str(job_dir)),
        "submit_cmake": lambda: fast_pool.submit_cmake(str(job_dir), build_dir=str(job_dir / "build")),
        "status": lambda: fast_pool.status(timeout=5),
        "shutdown": lambda: fast_pool.shutdown(),  # harmless: it must send nothing to the parent's serve
        "shutdown cancelling": lambda: fast_pool.shutdown(wait=True, cancel_futures=True),
    })

    assert time.monotonic() - start < 10, "the child waited instead of being refused at once"
    for use in ("submit_command", "submit_cmake", "status"):
        assert report[use].startswith("PoolClosedError: "), report
        assert f"belongs to process {parent}; a forked child" in report[use]
        assert "create a new archpool.Pool in the child (or fork before creating the pool)" in report[use]
    assert report["shutdown"] == report["shutdown cancelling"] == "returned"
    after = fast_pool.submit_command(["sleep", "0.2"], cwd=str(job_dir), id="after")
    assert before.result(timeout=60).succeeded and after.result(timeout=60).succeeded
    assert before.job_id != after.job_id
    assert fast_pool.status(30).outcomes == {"succeeded": 2}, "the child's submits reached the parent's serve"


KILLED_PARENT = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, sys.argv[1])
    import archpool

    pool = archpool.Pool(jobs=1, platform="cuda", arch="90", no_toolchain_check=True, no_cache=True, quiet=True,
                         log_dir=sys.argv[2], stderr=sys.argv[3])
    future = pool.submit_command(json.loads(os.environ["SLEEPER_ARGV"]), cwd=sys.argv[4])
    future.wait_started(60)
    child = os.fork()
    if child == 0:
        time.sleep(20)  # outlives the parent, which the test kills
        os._exit(0)
    print(pool.info.pid, child, flush=True)
    time.sleep(600)
""")


def test_a_forked_child_that_outlives_its_killed_parent_does_not_keep_serve_and_its_jobs_running(
        archpool_home: Path, tmp_path: Path, job_dir: Path) -> None:
    sleeper = Sleeper(tmp_path)  # its argv through the environment: only the job's processes carry its marker
    parent = subprocess.Popen([sys.executable, "-c", KILLED_PARENT, str(CLIENT), str(tmp_path / "logs"),
                               str(tmp_path / "serve.stderr"), str(job_dir)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "SLEEPER_ARGV": json.dumps(sleeper.argv)})
    child = 0
    everything: Set[int] = set()
    try:
        serve_pid, child = map(int, parent.stdout.readline().split())  # type: ignore[union-attr]
        everything = {serve_pid} | sleeper.wait_started()

        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()

        left = wait_gone(everything, timeout=10)
        assert not left, "still running 10 s after the parent was killed (its forked child lives on): " + "; ".join(
            f"{pid} {cmdline(pid)}" for pid in sorted(left))
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
        sleeper.close()
        kill_all(everything | ({child} if child else set()))
