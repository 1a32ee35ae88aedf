"""Jobs through one warm pool of a real archpool serve: results, failures, futures, many threads."""

import concurrent.futures as cf
import os
import statistics
import threading
import time
from pathlib import Path
from typing import List

import pytest

import archpool
from conftest import KERNELS

SOFTMAX = KERNELS / "softmax.cu"


def test_a_command_job_builds_for_the_pools_target(pool: archpool.Pool, tmp_path: Path) -> None:
    future = pool.submit_command(["nvcc", "{offload-arch-flags}", "--fatbin", str(SOFTMAX), "-o", "softmax.fatbin"],
                                 cwd=str(tmp_path), artifacts=["softmax.fatbin"], id="softmax")

    result = future.result(timeout=120)

    assert isinstance(future, cf.Future)
    assert isinstance(result, archpool.JobResult)
    assert result.succeeded and result.outcome == "succeeded" and result.exit_code == 0
    assert result.kind == "command"
    assert result.id.startswith("softmax.") and result.id == future.job_id
    assert result.client_job_id == future.client_job_id
    assert result.artifacts == (archpool.Artifact(str(tmp_path / "softmax.fatbin"), ("compute_90", "sm_90")),)
    assert result.attempts == 1 and result.worker
    assert [p.name for p in result.phases] == ["command", "inspect"]
    assert result.log_path and Path(result.log_path).is_file() and Path(result.log_path).name == result.id + ".log"
    assert result.log_path.startswith(str(pool.log_dir))
    assert result.raw["job"]["id"] == result.id
    assert pool.target == archpool.Target("cuda", ("90",), "flag", "--arch 90")


def test_a_cmake_job_configures_and_builds_with_the_defines(pool: archpool.Pool, tmp_path: Path) -> None:
    result = pool.submit_cmake(KERNELS / "pointwise", build_dir=tmp_path / "build", id="scale_f64",
                               defines={"POINTWISE_OP": "scale", "POINTWISE_DTYPE": "double"},
                               build_type="Release", timeout="5m").result(timeout=300)

    library = tmp_path / "build" / "libpointwise_scale_double.so"
    assert result.kind == "cmake" and result.succeeded
    assert archpool.Artifact(str(library), ("compute_90", "sm_90")) in result.artifacts
    assert [p.name for p in result.phases] == ["configure", "build", "inspect"]
    assert result.timings.configure_ms > 0 and result.timings.build_ms > 0
    assert "-DCMAKE_CUDA_ARCHITECTURES=90" in Path(result.log_path).read_text()


def test_relative_paths_start_at_the_clients_working_directory(pool: archpool.Pool, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)

    result = pool.submit_command(["sh", "-c", "pwd > where.txt"], cwd="out", artifacts=["where.txt"]).result(60)

    assert (tmp_path / "out" / "where.txt").read_text().strip() == str(tmp_path / "out")
    assert [a.path for a in result.artifacts] == [str(tmp_path / "out" / "where.txt")]


def test_a_job_that_fails_raises_build_error_with_its_log_tail(pool: archpool.Pool, tmp_path: Path) -> None:
    future = pool.submit_command(["sh", "-c", "echo 'k.cu(3): error: n is undefined' >&2; exit 3"],
                                 cwd=str(tmp_path), id="broken")

    with pytest.raises(archpool.BuildError) as raised:
        future.result(timeout=60)

    error = raised.value
    assert error.result.outcome == "failed" and error.result.exit_code == 3
    assert error.result.id == future.job_id and not error.result.succeeded
    assert "k.cu(3): error: n is undefined" in (error.result.log_tail or "")
    assert str(error).startswith(f"job {future.job_id} failed: ")
    assert "k.cu(3): error: n is undefined" in str(error)
    assert error.result.log_path in str(error)
    assert future.exception() is error


def test_a_job_past_its_time_limit_is_killed_and_raises_timed_out(pool: archpool.Pool, tmp_path: Path) -> None:
    start = time.monotonic()
    future = pool.submit_command(["sleep", "60"], cwd=str(tmp_path), timeout=1.5)

    with pytest.raises(archpool.BuildError) as raised:
        future.result(timeout=60)

    assert raised.value.result.outcome == "timed_out" and raised.value.result.exit_code is None
    assert "time limit of 1500 ms" in (raised.value.result.message or "")  # 1.5 s reached serve as 1500ms
    assert time.monotonic() - start < 30


def test_a_job_serve_refuses_fails_its_future_with_serves_reason(pool: archpool.Pool, tmp_path: Path) -> None:
    future = pool.submit_cmake(tmp_path / "nothere")

    with pytest.raises(archpool.JobRejectedError) as raised:
        future.result(timeout=30)

    assert raised.value.code == "invalid-job"
    assert str(tmp_path / "nothere") in str(raised.value)
    with pytest.raises(archpool.JobRejectedError):
        future.wait_accepted(timeout=1)


def test_two_builds_of_one_project_never_share_its_default_build_folder(pool: archpool.Pool, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default build/<id> starts at this process's working directory
    axpy = pool.submit_cmake(KERNELS / "pointwise", defines={"OP": "axpy"})
    scale = pool.submit_cmake(KERNELS / "pointwise", defines={"OP": "scale"})

    with pytest.raises(archpool.JobRejectedError) as raised:
        scale.result(timeout=60)

    assert raised.value.code == "build-dir-in-use"
    assert str(tmp_path / "build" / "pointwise") in str(raised.value)
    assert axpy.result(timeout=300).succeeded


def test_a_define_of_the_architecture_is_refused(pool: archpool.Pool, tmp_path: Path) -> None:
    future = pool.submit_cmake(KERNELS / "pointwise", build_dir=tmp_path, defines={"CMAKE_CUDA_ARCHITECTURES": "75"})

    with pytest.raises(archpool.JobRejectedError, match="CMAKE_CUDA_ARCHITECTURES"):
        future.result(timeout=30)


def test_wrong_python_types_are_refused_before_anything_is_sent(pool: archpool.Pool, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="argv must be a list of strings, not one str"):
        pool.submit_command("nvcc -c k.cu")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="env must map strings to strings"):
        pool.submit_command(["true"], env={"N": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="argv is empty"):
        pool.submit_command([])
    with pytest.raises(ValueError, match="longer than the 4194304 bytes archpool serve reads"):
        pool.submit_command(["echo", "x" * (4 * 1024 * 1024)])
    assert pool.submit_command(["true"], cwd=str(tmp_path)).result(timeout=60).succeeded  # nothing of those reached serve


def test_futures_work_with_wait_as_completed_and_callbacks(pool: archpool.Pool, tmp_path: Path) -> None:
    fast = [pool.submit_command(["sh", "-c", f"exit {n}"], cwd=str(tmp_path), id=f"exit{n}") for n in (0, 1, 0)]
    called = []
    done = threading.Event()

    def callback(f: cf.Future) -> None:
        called.append((f, threading.current_thread().name))
        done.set()

    fast[1].add_done_callback(callback)

    finished, not_done = cf.wait(fast, timeout=60)
    assert finished == set(fast) and not not_done
    assert {f for f in cf.as_completed(fast, timeout=1)} == set(fast)
    assert done.wait(5) and called[0][0] is fast[1] and called[0][1].startswith("archpool-dispatcher")
    assert [f.exception() is None for f in fast] == [True, False, True]
    late = []
    fast[0].add_done_callback(late.append)  # a done future calls back at once, on this thread
    assert late == [fast[0]]
    first = cf.wait(fast, return_when=cf.FIRST_EXCEPTION, timeout=1)
    assert fast[1] in first.done


def test_many_threads_submit_at_once_and_each_future_gets_its_own_result(pool: archpool.Pool,
                                                                         tmp_path: Path) -> None:
    threads, per_thread = 8, 6
    barrier = threading.Barrier(threads)

    def submit_all(t: int) -> List[cf.Future]:
        barrier.wait()
        return [(t * per_thread + i, pool.submit_command(["sh", "-c", 'exit "$1"', "sh", str(t * per_thread + i + 1)],
                                                         cwd=str(tmp_path), id=f"t{t}_{i}"))
                for i in range(per_thread)]

    with cf.ThreadPoolExecutor(threads) as executor:
        submitted = [pair for batch in executor.map(submit_all, range(threads)) for pair in batch]

    assert len({f.client_job_id for _, f in submitted}) == threads * per_thread
    for n, future in submitted:
        error = future.exception(timeout=120)
        assert isinstance(error, archpool.BuildError)
        assert error.result.exit_code == n + 1, f"job {future.job_id} got another job's result"
        assert error.result.client_job_id == future.client_job_id


def test_submit_is_cheap_on_a_warm_pool(pool: archpool.Pool, tmp_path: Path) -> None:
    """A sanity bound only (machines here are shared): submit returns at once, and serve accepts soon after."""
    pool.submit_command(["true"], cwd=str(tmp_path)).result(timeout=60)
    submit_ms, accepted_ms, futures = [], [], []
    for n in range(100):
        start = time.perf_counter()
        future = pool.submit_command(["true"], cwd=str(tmp_path), id=f"t{n}")
        submit_ms.append((time.perf_counter() - start) * 1000)
        future.wait_accepted(timeout=30)
        accepted_ms.append((time.perf_counter() - start) * 1000)
        futures.append(future)
    cf.wait(futures, timeout=120)
    p99 = statistics.quantiles(accepted_ms, n=100)[98]
    print(f"submit: median {statistics.median(submit_ms):.3f} ms; submit->accepted: median"
          f" {statistics.median(accepted_ms):.3f} ms, p99 {p99:.3f} ms")
    assert statistics.median(submit_ms) < 50
    assert p99 < 500
    assert all(f.result().succeeded for f in futures)


def test_status_counts_the_whole_serve(pool: archpool.Pool) -> None:
    status = pool.status(timeout=30)

    assert status.workers == 2 and status.clients == 1 and not status.shutting_down
    assert status.accepted >= 1 and status.uptime_ms > 0
    assert sum(status.outcomes.values()) <= status.accepted
    assert os.getpid() != pool.info.pid
