"""A ``result`` message read into a JobResult, without a serve: the fields a job has only sometimes are None when
the message lacks them (a job that never ran before, a command job, a serve too old to send them)."""

from typing import Any, Dict

import archpool


def built_message(**job: Any) -> Dict[str, Any]:
    """A ``result`` as serve sends it for a CMake job a worker built, without the fields the tests add."""
    entry = {"id": "axpy.2", "clientJobId": "c2", "kind": "cmake", "outcome": "succeeded", "exitCode": 0,
             "worker": "w1", "attempts": 1, "startMs": 40, "queueWaitMs": 1, "configureMs": 900, "buildMs": 2100,
             "inspectMs": 30, "totalMs": 3050, "logPath": "/l/axpy.2.log",
             "phases": [{"name": "configure", "ms": 900, "exitCode": 0}, {"name": "build", "ms": 2100, "exitCode": 0}],
             "artifacts": [{"path": "/b/libaxpy.so", "archs": ["sm_90"]}], "cache": "stored", "cacheKey": "cd" * 32}
    entry.update(job)
    return {"type": "result", "clientJobId": "c2", "shared": False, "job": entry}


def test_expected_ms_and_configure_seeded_are_read_from_the_job() -> None:
    result = archpool.JobResult.from_message(built_message(expectedMs=2980, configureSeeded=True))

    assert result.expected_ms == 2980 and result.configure_seeded is True
    assert result.raw["job"]["expectedMs"] == 2980
    seed = archpool.JobResult.from_message(built_message(expectedMs=0, configureSeeded=False))
    assert seed.expected_ms == 0 and seed.configure_seeded is False


def test_a_job_without_them_has_none() -> None:
    """A job that never ran before, with no_configure_seed=True (or a command job, or a restored one)."""
    result = archpool.JobResult.from_message(built_message())

    assert result.succeeded and result.worker == "w1" and result.timings.total_ms == 3050
    assert (result.expected_ms, result.configure_seeded) == (None, None)
    assert "expected_ms=None" in repr(result) and "configure_seeded=None" in repr(result)


def test_only_one_of_them_may_be_there() -> None:
    first_run = archpool.JobResult.from_message(built_message(configureSeeded=False))
    assert (first_run.expected_ms, first_run.configure_seeded) == (None, False)
    command = archpool.JobResult.from_message(built_message(kind="command", expectedMs=120, configureMs=0,
                                                            phases=[{"name": "command", "ms": 120}]))
    assert (command.kind, command.expected_ms, command.configure_seeded) == ("command", 120, None)


def test_they_take_part_in_equality() -> None:
    seeded = archpool.JobResult.from_message(built_message(configureSeeded=True))
    assert seeded == archpool.JobResult.from_message(built_message(configureSeeded=True))
    assert seeded != archpool.JobResult.from_message(built_message(configureSeeded=False))


def test_the_target_a_job_was_built_for_is_read_from_the_job() -> None:
    result = archpool.JobResult.from_message(built_message(target={"platform": "cuda", "archs": ["90"]}))

    assert result.target == archpool.JobTarget("cuda", ("90",)) and result.target.archs == ("90",)
    assert result.succeeded and not result.skipped
    assert archpool.JobResult.from_message(built_message()).target is None  # a serve too old to say


def test_a_skipped_job_is_neither_succeeded_nor_a_failure() -> None:
    result = archpool.JobResult.from_message(built_message(
        outcome="skipped", exitCode=None, worker=None, attempts=0, logPath=None, phases=[], artifacts=[], cache=None,
        cacheKey=None, message="skipped: it supports 90a, the run builds 80;90",
        target={"platform": "cuda", "archs": ["80", "90"]}))

    assert result.skipped and not result.succeeded and result.outcome == "skipped"
    assert result.message.startswith("skipped: ") and "90a" in result.message
    assert result.target == archpool.JobTarget("cuda", ("80", "90"))
    assert (result.worker, result.attempts, result.log_path, result.artifacts) == (None, 0, None, ())
    for outcome in ("failed", "timed_out", "crashed", "cancelled", "deferred"):
        other = archpool.JobResult.from_message(built_message(outcome=outcome))
        assert not other.skipped and not other.succeeded


HELLO = {"type": "hello", "service": 1, "archpoolVersion": "0.1.0", "pid": 7,
         "target": {"platform": "cuda", "archs": ["80", "90"], "source": "flag", "detail": "--target cuda:80,90"},
         "pool": {"mode": "process", "launcher": "local", "workers": 2}}


def test_the_hellos_targets_are_read_and_the_first_is_the_target() -> None:
    hip = {"platform": "hip", "archs": ["gfx942"], "source": "flag", "detail": "--target hip:gfx942"}
    info = archpool.ServeInfo.from_message(dict(HELLO, gpuTargets=[HELLO["target"], hip]))

    assert info.target == archpool.Target("cuda", ("80", "90"), "flag", "--target cuda:80,90")
    assert info.gpu_targets == (info.target, archpool.Target("hip", ("gfx942",), "flag", "--target hip:gfx942"))


def test_a_hello_without_targets_has_its_target_as_the_only_one() -> None:
    info = archpool.ServeInfo.from_message(HELLO)

    assert info.gpu_targets == (info.target,)
    made = archpool.ServeInfo(service=1, archpool_version="0", pid=None, target=info.target, mode=None,
                              launcher=None, workers=None, log_dir=None, report=None, raw={})
    assert made.gpu_targets == (info.target,)
