"""A pool's life against the real archpool serve: starting (and refusing to), cancelling, shutting down, serve
dying under it."""

import concurrent.futures as cf
import json
import os
import signal
import time
from pathlib import Path
from typing import Dict, Iterator

import pytest

import archpool
from procs import Sleeper, alive, descendants, wait_gone


@pytest.fixture
def serve_dir(tmp_path: Path) -> Dict[str, str]:
    """A pool's own log folder and stderr file, so that what serve said can be read."""
    return {"log_dir": str(tmp_path / "logs"), "stderr": str(tmp_path / "serve.stderr")}


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[Sleeper]:
    s = Sleeper(tmp_path)
    yield s
    s.close()


@pytest.fixture
def own_pool(toolchain: None, serve_dir: Dict[str, str]) -> Iterator[archpool.Pool]:
    """A pool of one worker, for a test that ends it."""
    pool = archpool.Pool(jobs=1, platform="cuda", arch="90", quiet=True, **serve_dir)
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


# --- starting


def test_a_flag_archpool_refuses_is_one_usage_error_with_its_paragraph(archpool_home: Path) -> None:
    with pytest.raises(archpool.UsageError) as raised:
        archpool.Pool(arch="90", platform="cuda", verify="sometimes")

    error = raised.value
    assert error.exit_code == 2
    assert "--verify" in str(error) and "sometimes" in str(error)
    assert error.stderr and error.stderr in str(error)
    assert "Traceback" not in error.stderr and "Exception" not in error.stderr


def test_an_architecture_that_cannot_be_resolved_is_an_arch_resolution_error(
        archpool_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Detection tools that find nothing, whatever this machine has: archpool refuses to guess (exit 3).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("nvidia-smi", "rocminfo", "amdgpu-arch"):
        (bin_dir / tool).write_text("#!/bin/sh\necho 'no devices' >&2\nexit 9\n")
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    with pytest.raises(archpool.ArchResolutionError) as raised:
        archpool.Pool(platform="cuda", log_dir=str(tmp_path / "logs"))

    assert raised.value.exit_code == 3
    assert "no GPU architecture could be resolved" in str(raised.value)
    assert isinstance(raised.value, archpool.ServeError)


def test_a_launcher_that_is_not_there_is_named(tmp_path: Path) -> None:
    with pytest.raises(archpool.ArchpoolNotFoundError, match="nothere"):
        archpool.Pool(archpool=str(tmp_path / "nothere"))


# --- cancelling


def test_cancel_of_a_queued_job_ends_it_and_the_running_one_goes_on(own_pool: archpool.Pool, sleeper: Sleeper,
                                                                    job_dir: Path) -> None:
    blocker = own_pool.submit_command(sleeper.argv, cwd=str(job_dir), id="blocker")
    sleeper.wait_started()
    queued = own_pool.submit_command(["touch", "ran"], cwd=str(job_dir), id="queued")
    queued.wait_accepted(30)

    assert blocker.wait_started(30) == "w1"
    assert not queued.running()

    assert queued.cancel() is True
    assert queued.cancelled() and queued.done()
    with pytest.raises(cf.CancelledError):
        queued.result()
    with pytest.raises(cf.CancelledError):
        queued.wait_started(0)
    done, _ = cf.wait([queued, blocker], timeout=10, return_when=cf.FIRST_COMPLETED)
    assert done == {queued}, "wait() did not count the cancelled future done"
    assert not blocker.done()
    assert own_pool.status(30).running == 1

    assert blocker.cancel() is False, "a running job's future is not cancelled (as in concurrent.futures)"
    assert blocker.running() and sleeper.pids()
    assert blocker.kill() is True
    assert not wait_gone(sleeper.pids(), timeout=10), "kill did not kill the running job"
    with pytest.raises(archpool.BuildError) as raised:
        blocker.result(timeout=30)
    assert raised.value.result.outcome == "cancelled"
    assert blocker.kill() is False
    assert own_pool.submit_command(["true"], cwd=str(job_dir)).result(timeout=60).succeeded
    assert not (job_dir / "ran").exists()


def test_a_job_a_worker_runs_is_running_names_its_worker_and_cancel_leaves_it_be(
        own_pool: archpool.Pool, tmp_path: Path, job_dir: Path) -> None:
    gate = tmp_path / "go"  # outside the job's cwd: not an artifact
    future = own_pool.submit_command(["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.02; done', "sh", str(gate)],
                                     cwd=str(job_dir), id="gated")
    assert future.worker is None and future.attempt == 0

    assert future.wait_started(60) == "w1"
    assert future.running() and not future.done()
    assert future.worker == "w1" and future.attempt == 1
    assert future.cancel() is False
    assert future.running() and not future.cancelled()
    gate.touch()
    result = future.result(timeout=60)
    assert result.succeeded and result.worker == future.worker
    assert not future.running()


def test_wait_and_as_completed_take_running_cancelled_and_finished_futures(
        own_pool: archpool.Pool, tmp_path: Path, job_dir: Path) -> None:
    gate = tmp_path / "go"
    running = own_pool.submit_command(["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.02; done', "sh", str(gate)],
                                      cwd=str(job_dir), id="gated")
    later = own_pool.submit_command(["true"], cwd=str(job_dir), id="later")
    dropped = own_pool.submit_command(["touch", "ran"], cwd=str(job_dir), id="dropped")
    running.wait_started(60)
    dropped.wait_accepted(30)
    assert dropped.cancel() is True

    done, not_done = cf.wait([running, later, dropped], timeout=10, return_when=cf.FIRST_COMPLETED)
    assert done == {dropped} and not_done == {running, later}
    gate.touch()
    assert list(cf.as_completed([running, later, dropped], timeout=60)) == [dropped, running, later]
    assert running.result().succeeded and later.result().succeeded
    assert not (job_dir / "ran").exists()


def test_cancel_of_a_job_that_has_its_result_does_nothing(own_pool: archpool.Pool, job_dir: Path) -> None:
    future = own_pool.submit_command(["true"], cwd=str(job_dir))
    future.result(timeout=60)

    assert future.cancel() is False
    assert not future.cancelled() and future.result().succeeded


def test_an_identical_job_in_flight_is_shared_and_a_cancel_ends_only_its_own_submit(
        own_pool: archpool.Pool, sleeper: Sleeper, job_dir: Path) -> None:
    first = own_pool.submit_command(sleeper.argv, cwd=str(job_dir), id="same")
    sleeper.wait_started()
    second = own_pool.submit_command(sleeper.argv, cwd=str(job_dir), id="same")
    second.wait_accepted(30)

    assert first.shared is False and second.shared is True
    assert second.job_id == first.job_id
    assert second.wait_started(30) == first.worker, "a submit that joins a running build runs too"
    assert second.kill() is True
    with pytest.raises(archpool.BuildError, match="goes on"):
        second.result(timeout=30)
    assert sleeper.pids() and not first.done(), "cancelling one submit stopped the build the other shares"
    assert first.kill() is True
    assert not wait_gone(sleeper.pids(), timeout=10)


# --- shutting down


def test_shutdown_waits_for_every_job_and_serve_says_bye(own_pool: archpool.Pool, job_dir: Path) -> None:
    futures = [own_pool.submit_command(["sh", "-c", 'sleep 1; touch "done$1"', "sh", str(n)], cwd=str(job_dir),
                                       id=f"j{n}")
               for n in range(3)]

    own_pool.shutdown(wait=True)

    assert all(f.done() and f.result().succeeded for f in futures)
    assert sorted(p.name for p in job_dir.glob("done*")) == ["done0", "done1", "done2"]
    assert own_pool.exit_code == 0
    assert own_pool.bye is not None and own_pool.bye.outcomes == {"succeeded": 3}
    assert own_pool.bye.report and Path(own_pool.bye.report).is_file()
    report = json.loads(Path(own_pool.bye.report).read_text())
    assert own_pool.info.device_isolation in ("namespace", "environment")
    assert own_pool.info.device_isolation == report["pool"]["deviceIsolation"], "hello says what the report says"
    with pytest.raises(archpool.PoolClosedError, match="shut"):
        own_pool.submit_command(["true"])
    own_pool.shutdown()  # again: harmless


def test_shutdown_with_cancel_futures_kills_running_jobs_and_cancels_queued_ones(
        own_pool: archpool.Pool, sleeper: Sleeper, job_dir: Path) -> None:
    blocker = own_pool.submit_command(sleeper.argv, cwd=str(job_dir), id="blocker")
    sleep_pids = sleeper.wait_started()
    queued = own_pool.submit_command(["touch", "ran"], cwd=str(job_dir), id="queued")
    queued.wait_accepted(30)

    start = time.monotonic()
    own_pool.shutdown(wait=True, cancel_futures=True)

    assert time.monotonic() - start < 60
    for future in (blocker, queued):
        with pytest.raises(archpool.BuildError) as raised:
            future.result(timeout=0)
        assert raised.value.result.outcome == "cancelled"
    assert not alive(sleep_pids)
    assert not (job_dir / "ran").exists()
    assert own_pool.exit_code == 0


def test_shutdown_without_wait_returns_at_once_and_the_jobs_still_finish(own_pool: archpool.Pool,
                                                                         job_dir: Path) -> None:
    future = own_pool.submit_command(["sleep", "2"], cwd=str(job_dir))
    future.wait_accepted(30)

    start = time.monotonic()
    own_pool.shutdown(wait=False)

    assert time.monotonic() - start < 1.5 and not future.done()
    assert future.result(timeout=60).succeeded


def test_a_second_shutdown_may_cancel_what_the_first_let_run(own_pool: archpool.Pool, sleeper: Sleeper,
                                                              job_dir: Path) -> None:
    future = own_pool.submit_command(sleeper.argv, cwd=str(job_dir))
    future.wait_started(60)
    own_pool.shutdown(wait=False)

    own_pool.shutdown(wait=True, cancel_futures=True)

    with pytest.raises(archpool.BuildError) as raised:
        future.result(timeout=0)
    assert raised.value.result.outcome == "cancelled"
    assert not sleeper.pids()
    assert own_pool.exit_code == 0


def test_the_context_manager_waits_for_the_jobs_and_ends_serve(toolchain: None, serve_dir: Dict[str, str],
                                                               job_dir: Path) -> None:
    with archpool.Pool(jobs=1, platform="cuda", arch="90", **serve_dir) as pool:
        future = pool.submit_command(["sleep", "1"], cwd=str(job_dir))
        serve_pid = pool.info.pid

    assert future.done() and future.result().succeeded
    assert pool.exit_code == 0
    assert not alive([serve_pid])
    assert "Traceback" not in Path(serve_dir["stderr"]).read_text()


def test_the_context_manager_cancels_the_jobs_when_the_block_raises(toolchain: None, serve_dir: Dict[str, str],
                                                                    sleeper: Sleeper, job_dir: Path) -> None:
    with pytest.raises(KeyError):
        with archpool.Pool(jobs=1, platform="cuda", arch="90", **serve_dir) as pool:
            future = pool.submit_command(sleeper.argv, cwd=str(job_dir))
            sleeper.wait_started()
            raise KeyError("the caller's own error")

    error = future.exception(timeout=0)
    assert isinstance(error, archpool.BuildError) and error.result.outcome == "cancelled"
    assert not sleeper.pids()


# --- serve dying


def test_serve_killed_fails_every_pending_future_saying_so(own_pool: archpool.Pool, sleeper: Sleeper,
                                                            job_dir: Path) -> None:
    futures = [own_pool.submit_command(sleeper.argv, cwd=str(job_dir), id="sleeper"),
               own_pool.submit_command(["true"], cwd=str(job_dir), id="queued")]
    sleeper.wait_started()
    below = descendants(own_pool.info.pid)

    os.kill(own_pool.info.pid, signal.SIGKILL)

    for future in futures:
        error = future.exception(timeout=30)
        assert isinstance(error, archpool.ServeDiedError)
        assert f"pid {own_pool.info.pid}" in str(error) and "SIGKILL" in str(error)
        assert error.exit_code == -signal.SIGKILL
    with pytest.raises(archpool.PoolClosedError, match="SIGKILL"):
        own_pool.submit_command(["true"])
    with pytest.raises(archpool.PoolClosedError):
        own_pool.status()
    assert not wait_gone(below, timeout=10), "the killed serve's workers and jobs stayed"
