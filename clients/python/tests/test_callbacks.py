"""Done-callbacks run on the pool's dispatcher thread: whatever one raises, ``SystemExit`` and ``KeyboardInterrupt``
included, is logged on the ``archpool`` logger and the dispatcher goes on resolving every other future; one that
blocks delays the other futures but never stops the client from reading ``serve``'s replies."""

import logging
import threading
from pathlib import Path
from typing import Any, Callable, Type

import pytest

import archpool


def raising(kind: Type[BaseException]) -> Callable[[Any], None]:
    def callback(future: Any) -> None:
        raise kind(f"{kind.__name__} from a done-callback")
    return callback


def test_a_callback_that_raises_even_system_exit_leaves_the_other_futures_their_results(
        fast_pool: archpool.Pool, job_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="archpool")
    futures = [fast_pool.submit_command(["sleep", f"0.{20 + 5 * n}"], cwd=str(job_dir), id=f"s{n}") for n in range(5)]
    kinds = [SystemExit, KeyboardInterrupt, ValueError]
    for future, kind in zip(futures, kinds):
        future.add_done_callback(raising(kind))

    assert all(f.result(timeout=60).succeeded for f in futures), "a callback ended the dispatcher thread"

    logged = {(r.getMessage().split(" of job ")[1].split()[0], r.exc_info[0])
              for r in caplog.records if r.name == "archpool" and "done-callback" in r.getMessage() and r.exc_info}
    assert logged == {(f.client_job_id, kind) for f, kind in zip(futures, kinds)}, "not logged with its traceback"
    assert fast_pool.status(30).outcomes == {"succeeded": 5}
    # on the caller's thread (a future done already) the standard library's rule holds: a BaseException propagates
    with pytest.raises(SystemExit):
        futures[0].add_done_callback(raising(SystemExit))
    futures[0].add_done_callback(raising(ValueError))  # an Exception is logged by concurrent.futures
    assert fast_pool.submit_command(["true"], cwd=str(job_dir)).result(timeout=60).succeeded


def test_a_callback_that_blocks_longer_than_the_stall_limit_leaves_serve_connected(
        archpool_home: Path, tmp_path: Path, job_dir: Path) -> None:
    # serve disconnects a client that leaves a reply unread for 1 s; a callback blocks 5 s while 200 jobs send
    # ~3 replies each (far more than a 64 KiB pipe holds): the client must go on reading them meanwhile
    pool = archpool.Pool(jobs=2, platform="cuda", arch="90", no_toolchain_check=True, no_cache=True, quiet=True,
                         client_stall_limit="1s", log_dir=str(tmp_path / "logs"),
                         stderr=str(tmp_path / "serve.stderr"))
    try:
        ran_on = []

        def slow(future: Any) -> None:
            ran_on.append(threading.current_thread().name)
            threading.Event().wait(5)

        first = pool.submit_command(["true"], cwd=str(job_dir), id="slow-callback")
        first.add_done_callback(slow)  # before serve could answer: it runs on the dispatcher thread
        futures = [first] + [pool.submit_command(["true"], cwd=str(job_dir), id=f"t{n}") for n in range(199)]

        outcomes = [f.result(timeout=60).outcome for f in futures]

        assert outcomes == ["succeeded"] * len(futures)
        assert len(ran_on) == 1 and ran_on[0].startswith("archpool-dispatcher"), ran_on
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    assert pool.exit_code == 0, (tmp_path / "serve.stderr").read_text()
