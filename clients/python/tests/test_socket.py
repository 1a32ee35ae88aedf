"""connect(): clients of an ``archpool serve --socket`` that the test starts, sharing its pool and its target."""

import concurrent.futures as cf
import gc
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

import archpool
from procs import Sleeper, alive, run_in_fork, wait_gone


@pytest.fixture
def socket_serve(toolchain: None, archpool_home: Path, tmp_path: Path) -> Iterator[Path]:
    """``archpool serve --socket`` running; its socket's path (short: a socket's path has at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="archpool-test-"))
    socket = folder / "run" / "serve.sock"
    stderr = open(tmp_path / "serve.stderr", "wb")
    launcher = archpool.find_archpool()
    serve = subprocess.Popen([launcher, "serve", "--socket", str(socket), "-j", "2", "--platform", "cuda",
                              "--arch", "90", "--log-dir", str(tmp_path / "logs"), "-q"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        yield socket
        stop = subprocess.run([launcher, "serve", "--socket", str(socket), "--stop"], capture_output=True, text=True,
                              timeout=60)
        assert stop.returncode == 0, stop.stderr
        assert serve.wait(timeout=60) == 0
        assert not socket.exists()
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        stderr.close()
        shutil.rmtree(folder)


def test_two_pools_connected_at_once_share_one_serve(socket_serve: Path, tmp_path: Path) -> None:
    first = archpool.connect(socket_serve, timeout=120)
    second = archpool.connect(str(socket_serve))

    assert first.target == second.target == archpool.Target("cuda", ("90",), "flag", "--arch 90")
    assert first.info.pid == second.info.pid
    assert first.exit_code is None
    a = first.submit_command(["sh", "-c", "echo a > a.txt"], cwd=str(tmp_path), artifacts=["a.txt"], id="a")
    b = second.submit_command(["sh", "-c", "exit 4"], cwd=str(tmp_path), id="b")
    assert a.result(timeout=60).succeeded
    with pytest.raises(archpool.BuildError):
        b.result(timeout=60)
    assert first.status(30).clients == 2

    first.shutdown()  # only leaves

    with pytest.raises(archpool.PoolClosedError):
        first.submit_command(["true"])
    assert alive([second.info.pid]), "a connect()ed pool's shutdown stopped the serve"
    assert second.submit_command(["true"], cwd=str(tmp_path)).result(timeout=60).succeeded
    second.shutdown()


def test_shutdown_of_a_connected_pool_waits_for_its_own_jobs(socket_serve: Path, tmp_path: Path) -> None:
    with archpool.connect(socket_serve, timeout=120) as pool:
        futures = [pool.submit_command(["sleep", "1"], cwd=str(tmp_path), id=f"s{n}") for n in range(3)]

    assert all(f.result(timeout=0).succeeded for f in futures)
    assert pool.exit_code is None and alive([pool.info.pid])


def test_cancel_futures_on_a_connected_pool_cancels_only_its_own_jobs(socket_serve: Path, tmp_path: Path) -> None:
    sleeper = Sleeper(tmp_path)
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    mine = archpool.connect(socket_serve, timeout=120)
    theirs = archpool.connect(socket_serve)
    long = mine.submit_command(sleeper.argv, cwd=str(job_dir), id="long")
    sleeper.wait_started()
    long.wait_started(30)
    other = theirs.submit_command(["sleep", "1"], cwd=str(job_dir), id="other")
    other.wait_accepted(30)

    mine.shutdown(wait=True, cancel_futures=True)

    with pytest.raises(archpool.BuildError) as raised:  # it ran: killed, not a cancelled future
        long.result(timeout=0)
    assert raised.value.result.outcome == "cancelled"
    assert not wait_gone(sleeper.pids(), timeout=10), "the cancelled job of the client that left still runs"
    assert other.result(timeout=60).succeeded
    sleeper.close()
    theirs.shutdown()


def test_connect_to_nothing_says_how_to_start_a_serve(tmp_path: Path) -> None:
    with pytest.raises(archpool.ServeError, match=r"no archpool serve at .*nothere\.sock.*archpool serve --socket"):
        archpool.connect(tmp_path / "nothere.sock")


def test_a_forked_child_cannot_use_its_parents_connection_and_leaves_it_open(socket_serve: Path,
                                                                            tmp_path: Path) -> None:
    pool = archpool.connect(socket_serve, timeout=120)
    before = pool.submit_command(["sleep", "0.3"], cwd=str(tmp_path), id="before")
    parent = os.getpid()

    report = run_in_fork({
        "submit_command": lambda: pool.submit_command(["true"], cwd=str(tmp_path)),
        "status": lambda: pool.status(timeout=5),
        "shutdown": lambda: pool.shutdown(wait=True, cancel_futures=True),  # must not cut the parent's connection
    })

    for use in ("submit_command", "status"):
        assert report[use].startswith("PoolClosedError: "), report
        assert f"belongs to process {parent}; a forked child" in report[use]
        assert f"call archpool.connect({str(socket_serve)!r}) again in the child" in report[use]
    assert report["shutdown"] == "returned"
    assert before.result(timeout=60).succeeded
    assert pool.submit_command(["true"], cwd=str(tmp_path), id="after").result(timeout=60).succeeded
    assert pool.status(30).clients == 1
    pool.shutdown()


def test_a_connected_pool_dropped_without_shutdown_leaves_the_serve(socket_serve: Path) -> None:
    staying = archpool.connect(socket_serve, timeout=120)

    def connect_and_drop() -> None:
        archpool.connect(socket_serve)

    connect_and_drop()
    gc.collect()

    deadline = time.monotonic() + 15
    while staying.status(30).clients != 1:  # serve tells no one when a client leaves: asked again, for 15 s at most
        assert time.monotonic() < deadline, "the dropped pool is still connected"
        time.sleep(0.05)
    staying.shutdown()
