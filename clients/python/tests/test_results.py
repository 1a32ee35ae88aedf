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
