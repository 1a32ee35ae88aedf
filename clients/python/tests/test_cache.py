"""The build cache through the client: a command job with ``inputs`` is stored by one pool and restored by the next
(no worker runs it), one without is uncacheable, and ``no_cache`` turns the cache off. Every pool here keeps its
cache in the test's own folder; the jobs are shell commands, so no GPU compiler is needed."""

import re
from pathlib import Path
from typing import Any, Dict

import pytest

import archpool
from archpool._jobs import command_job

COPY = ["sh", "-c", "cat in.txt > out.txt"]


def own_pool(tmp_path: Path, name: str, **options: Any) -> archpool.Pool:
    """A pool of one worker with its logs in the test's folder, under ``name`` (the cache is the caller's)."""
    (tmp_path / name).mkdir(exist_ok=True)
    return archpool.Pool(jobs=1, platform="cuda", arch="90", no_toolchain_check=True, quiet=True,
                         log_dir=str(tmp_path / name / "logs"), stderr=str(tmp_path / name / "serve.stderr"),
                         **options)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The job's folder, with the one file it reads."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "in.txt").write_text("kernel v1\n")
    return folder


def copy_job(pool: archpool.Pool, work: Path, **inputs: Any) -> archpool.JobFuture:
    return pool.submit_command(COPY, cwd=str(work), artifacts=["out.txt"], id="copy", **inputs)


def test_a_job_with_inputs_is_stored_and_another_pool_restores_it_without_a_worker(archpool_home: Path,
                                                                                   tmp_path: Path, work: Path) -> None:
    cache = tmp_path / "c"
    with own_pool(tmp_path, "first", cache=cache) as pool:
        first = copy_job(pool, work, inputs=["in.txt"]).result(timeout=60)

    assert first.cache == "stored" and first.cache_note is None and not first.restored
    assert first.cache_miss_reason == "no-entry"
    assert first.cache_key is not None and re.fullmatch(r"[0-9a-f]{64}", first.cache_key)
    assert first.worker and first.attempts == 1
    assert (work / "out.txt").read_text() == "kernel v1\n"
    assert any(cache.iterdir()), "nothing was written in the pool's cache folder"

    (work / "out.txt").unlink()
    with own_pool(tmp_path, "second", cache=str(cache)) as pool:
        future = copy_job(pool, work, inputs=["in.txt"])
        second = future.result(timeout=60)
        assert second.cache == "hit" and second.restored
        assert second.cache_key == first.cache_key and second.cache_note is None
        assert second.cache_miss_reason is None
        assert second.succeeded and second.worker is None and second.attempts == 0 and second.phases == ()
        assert [a.path for a in second.artifacts] == [str(work / "out.txt")]
        assert (work / "out.txt").read_text() == "kernel v1\n", "the hit did not put the artifact back"
        assert future.worker is None and not future.running()
        assert future.wait_started(0) is None, "a restored job has no worker to wait for"

        (work / "in.txt").write_text("kernel v2\n")  # an input changed: another key, built again
        third = copy_job(pool, work, inputs=["in.txt"]).result(timeout=60)
        assert third.cache == "stored" and third.cache_key != first.cache_key and third.worker
        assert (work / "out.txt").read_text() == "kernel v2\n"


def test_a_command_job_without_inputs_is_uncacheable_and_says_why(archpool_home: Path, tmp_path: Path,
                                                                  work: Path) -> None:
    with own_pool(tmp_path, "serve", cache=tmp_path / "c") as pool:
        result = copy_job(pool, work).result(timeout=60)

    assert result.succeeded and result.cache == "uncacheable" and result.cache_key is None
    assert result.cache_note and "inputs" in result.cache_note
    assert result.worker and not result.restored


def test_no_cache_builds_every_job_and_says_nothing_of_a_cache(archpool_home: Path, tmp_path: Path, work: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    default = tmp_path / "default-cache"
    monkeypatch.setenv("ARCHPOOL_CACHE_DIR", str(default))
    with own_pool(tmp_path, "serve", no_cache=True) as pool:
        results = [copy_job(pool, work, inputs=["in.txt"]).result(timeout=60) for _ in range(2)]

    for result in results:
        assert result.succeeded and result.worker and result.attempts == 1
        assert (result.cache, result.cache_key, result.cache_note) == (None, None, None)
        assert "cache" not in result.raw["job"]
    assert not default.exists(), "no_cache=True still used $ARCHPOOL_CACHE_DIR"


def test_no_cache_with_a_cache_folder_is_archpools_usage_error(archpool_home: Path, tmp_path: Path) -> None:
    with pytest.raises(archpool.UsageError, match="--no-cache"):
        own_pool(tmp_path, "serve", no_cache=True, cache=tmp_path / "c")


# --- without a serve


def test_inputs_are_sent_as_given_and_left_out_when_none() -> None:
    job = command_job(COPY, inputs=["src/*.cu", Path("include/k.h")])
    assert job["inputs"] == ["src/*.cu", "include/k.h"]
    assert command_job(COPY, inputs=[])["inputs"] == []
    assert "inputs" not in command_job(COPY)
    with pytest.raises(TypeError, match="inputs must be a list of strings, not one str"):
        command_job(COPY, inputs="src/*.cu")  # type: ignore[arg-type]


def restored_message(**job: Any) -> Dict[str, Any]:
    """A ``result`` as serve sends it for a job the cache restored: no worker, no attempt, no phases."""
    entry = {"id": "copy.3", "clientJobId": "c3", "kind": "command", "outcome": "succeeded", "exitCode": 0,
             "attempts": 0, "startMs": 10, "queueWaitMs": 0, "totalMs": 4, "logPath": "/l/copy.3.log",
             "artifacts": [{"path": "/w/out.txt", "archs": []}], "cache": "remote-hit", "cacheKey": "ab" * 32}
    entry.update(job)
    return {"type": "result", "clientJobId": "c3", "shared": False, "job": entry}


def test_a_restored_result_has_no_worker_and_its_cache_fields() -> None:
    result = archpool.JobResult.from_message(restored_message())

    assert result.succeeded and result.restored
    assert result.worker is None and result.attempts == 0 and result.phases == ()
    assert (result.cache, result.cache_key, result.cache_note) == ("remote-hit", "ab" * 32, None)
    rejected = archpool.JobResult.from_message(restored_message(cache="rejected", cacheNote="damaged",
                                                                cacheMissReason="rejected"))
    assert not rejected.restored and rejected.cache_miss_reason == "rejected"
    assert archpool.JobResult.from_message(restored_message(cache=None, cacheKey=None)).cache is None
