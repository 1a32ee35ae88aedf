"""Several targets, and jobs that support some architectures (``platforms=``, ``archs=``): the job fields the
builders send, what a future does with a ``skipped`` result, and one pool of a real serve with ``gpu_targets=``.

All but the last test need no serve: the future tests run a real :class:`Connection` over an in-process transport
that answers each submit with the lines a real serve sent (a stand-in of the wire, not of the client)."""

import concurrent.futures as cf
import json
import queue
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import archpool
from archpool._connection import Connection
from archpool._errors import ServeDiedError, ServeError
from archpool._jobs import cmake_job, command_job
from archpool._transport import Transport

HELLO = {"type": "hello", "service": 1, "archpoolVersion": "0.1.0", "pid": 4242,
         "target": {"platform": "cuda", "archs": ["80", "90"], "source": "flag", "detail": "--target cuda:80,90"},
         "gpuTargets": [{"platform": "cuda", "archs": ["80", "90"], "source": "flag", "detail": "--target cuda:80,90"}],
         "pool": {"mode": "process", "launcher": "local", "workers": 1, "deviceIsolation": "namespace"},
         "logDir": "/l", "report": "/l/report.json"}


def skipped_job(client_job_id: str) -> Dict[str, Any]:
    """The ``job`` of a skipped result as serve sends it (a command job with ``archs: ["90a"]``, target 80;90)."""
    return {"id": "true.1", "clientJobId": client_job_id, "kind": "command", "outcome": "skipped", "attempts": 0,
            "startMs": 0, "queueWaitMs": 0, "configureMs": 0, "buildMs": 0, "commandMs": 0, "inspectMs": 0,
            "totalMs": 0, "phases": [], "message": "skipped: it supports 90a, the run builds 80;90", "artifacts": [],
            "attemptFailures": [], "warnings": [], "target": {"platform": "cuda", "archs": ["80", "90"]}}


def failed_job(client_job_id: str) -> Dict[str, Any]:
    return {"id": "sh.2", "clientJobId": client_job_id, "kind": "command", "outcome": "failed", "exitCode": 3,
            "worker": "w1", "attempts": 1, "logPath": "/l/sh.2.log", "message": "command (sh) exited with status 3",
            "target": {"platform": "cuda", "archs": ["90"]}}


def built_job(client_job_id: str) -> Dict[str, Any]:
    return {"id": "nvcc.3", "clientJobId": client_job_id, "kind": "command", "outcome": "succeeded", "exitCode": 0,
            "worker": "w1", "attempts": 1, "logPath": "/l/nvcc.3.log",
            "artifacts": [{"path": "/w/k.fatbin", "archs": ["compute_90", "sm_90"]}],
            "target": {"platform": "cuda", "archs": ["90"]}}


class Scripted(Transport):
    """serve's side of the wire, in this process: ``hello``, then for each submit its ``accepted`` and the
    ``result`` whose job ``answer`` makes of the submit's ``clientJobId``."""

    def __init__(self, answer: Callable[[Dict[str, Any]], Dict[str, Any]], hello: Optional[Dict[str, Any]] = None):
        self.answer = answer
        self.sent: List[Dict[str, Any]] = []
        self.lines: "queue.Queue[bytes]" = queue.Queue()
        self._put(hello or HELLO)

    def _put(self, message: Dict[str, Any]) -> None:
        self.lines.put((json.dumps(message) + "\n").encode())

    def read_line(self) -> bytes:
        return self.lines.get(timeout=30)

    def write(self, line: bytes) -> None:
        message = json.loads(line)
        self.sent.append(message)
        if message["type"] == "submit":
            cid = message["clientJobId"]
            self._put({"type": "accepted", "clientJobId": cid, "jobId": f"job.{cid}", "shared": False})
            self._put({"type": "result", "clientJobId": cid, "shared": False, "job": self.answer(message)})

    def close(self) -> None:
        self.lines.put(b"")

    def ended(self) -> ServeError:
        return ServeDiedError("the scripted serve ended")

    def start_failure(self) -> ServeError:
        return ServeError("the scripted serve said nothing")

    def finish(self) -> Optional[int]:
        return None

    def describe(self) -> str:
        return "a scripted serve"


def scripted_pool(answer: Callable[[Dict[str, Any]], Dict[str, Any]],
                  hello: Optional[Dict[str, Any]] = None) -> "tuple[archpool.Pool, Scripted]":
    transport = Scripted(answer, hello)
    return archpool.Pool._joined(Connection(transport)), transport


def by_archs(submit: Dict[str, Any]) -> Dict[str, Any]:
    """Skips a job that supports only 90a, fails a ``sh`` job, builds the rest."""
    job, cid = submit["job"], submit["clientJobId"]
    if job.get("archs") == ["90a"]:
        return skipped_job(cid)
    return failed_job(cid) if job.get("argv", [""])[0] == "sh" else built_job(cid)


# --- the builders


def test_command_and_cmake_jobs_carry_platforms_and_archs() -> None:
    assert command_job(["nvcc", "{offload-arch-flags}", "-c", "k.cu"], platforms=["cuda"], archs=[">=80", "90a"]) == {
        "id": "nvcc", "kind": "command", "argv": ["nvcc", "{offload-arch-flags}", "-c", "k.cu"],
        "platforms": ["cuda"], "archs": [">=80", "90a"]}
    assert cmake_job("kernels/pointwise", platforms=("hip",), archs=("gfx942", "gfx90a")) == {
        "id": "pointwise", "kind": "cmake", "sourceDir": "kernels/pointwise", "platforms": ["hip"],
        "archs": ["gfx942", "gfx90a"]}


def test_without_them_the_job_has_neither_field_and_empty_lists_are_sent() -> None:
    assert "platforms" not in command_job(["true"]) and "archs" not in command_job(["true"])
    assert "platforms" not in cmake_job("k") and "archs" not in cmake_job("k")
    assert command_job(["true"], archs=[], platforms=[])["archs"] == []  # serve says what an empty list means


def test_they_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        command_job(["true"], None, None, None, None, None, None, ["cuda"])  # type: ignore[misc]
    with pytest.raises(TypeError):
        cmake_job("k", None, None, None, None, None, None, None, None, None, None, None, ["cuda"])  # type: ignore


@pytest.mark.parametrize("kwargs, wrong", [
    ({"archs": "90a"}, r"archs must be a list of strings, not one str \(write archs=\['90a'\]\)"),
    ({"archs": 90}, r"archs must be a list of strings, not int \(write archs=\['90'\]\)"),
    ({"archs": ["80", 90]}, r"archs\[1\] must be a string, not int \(write '90'\)"),
    ({"platforms": "cuda"}, r"platforms must be a list of strings, not one str"),
    ({"platforms": [None]}, r"platforms\[0\] must be a string, not NoneType$"),
    ({"archs": [Path("90")]}, r"archs\[0\] must be a string, not PosixPath"),
])
def test_values_of_the_wrong_type_are_a_type_error(kwargs: Dict[str, Any], wrong: str) -> None:
    with pytest.raises(TypeError, match=wrong):
        command_job(["true"], **kwargs)
    with pytest.raises(TypeError, match=wrong):
        cmake_job("k", **kwargs)


def test_the_pools_submits_send_them() -> None:
    pool, transport = scripted_pool(by_archs)
    with pool:
        pool.submit_command(["true"], platforms=["cuda"], archs=["90a"]).result(timeout=10)
        pool.submit_cmake("k", build_dir="b", archs=[">=90"], platforms=["cuda"]).result(timeout=10)
        with pytest.raises(TypeError, match="archs must be a list of strings"):
            pool.submit_command(["true"], archs="90")
    jobs = [m["job"] for m in transport.sent if m["type"] == "submit"]
    assert [(j["kind"], j["platforms"], j["archs"]) for j in jobs] == [
        ("command", ["cuda"], ["90a"]), ("cmake", ["cuda"], [">=90"])]


# --- results and futures


def test_a_skipped_result_is_returned_not_raised() -> None:
    pool, _ = scripted_pool(by_archs)
    with pool:
        future = pool.submit_command(["true"], archs=["90a"])

        result = future.result(timeout=10)

        assert isinstance(result, archpool.JobResult)
        assert result.skipped and result.outcome == "skipped" and not result.succeeded
        assert result.message == "skipped: it supports 90a, the run builds 80;90"
        assert result.target == archpool.JobTarget("cuda", ("80", "90"))
        assert result.worker is None and result.attempts == 0 and result.log_path is None
        assert future.exception() is None and not future.cancelled()
        assert future.wait_started(0) is None, "a skipped job never reaches a worker, and that is no error"
        assert future.wait_accepted(0) == "job.c1"


def test_skipped_is_not_a_failure_for_wait_and_as_completed_but_failed_still_is() -> None:
    pool, _ = scripted_pool(by_archs)
    with pool:
        skipped = pool.submit_command(["true"], archs=["90a"])
        failed = pool.submit_command(["sh", "-c", "exit 3"])
        built = pool.submit_command(["nvcc", "{offload-arch-flags}", "k.cu"], archs=[">=90"])

        assert set(cf.as_completed([skipped, failed, built], timeout=10)) == {skipped, failed, built}
        first_failure = cf.wait([skipped, built, failed], timeout=10, return_when=cf.FIRST_EXCEPTION)
        assert failed in first_failure.done
        assert [f.exception() is None for f in (skipped, failed, built)] == [True, False, True]
        with pytest.raises(archpool.BuildError) as raised:
            failed.result()
        assert raised.value.result.outcome == "failed" and not raised.value.result.skipped
        assert built.result().succeeded and built.result().target == archpool.JobTarget("cuda", ("90",))
        outcomes = {f.result().outcome for f in (skipped, built)}
        assert outcomes == {"skipped", "succeeded"}


def test_an_outcome_this_client_does_not_know_is_not_succeeded_and_raises() -> None:
    """docs/service.md: a client treats an outcome it does not know as not succeeded."""
    pool, _ = scripted_pool(lambda submit: dict(skipped_job(submit["clientJobId"]), outcome="deferred"))
    with pool:
        with pytest.raises(archpool.BuildError, match="deferred: skipped: it supports 90a"):
            pool.submit_command(["true"]).result(timeout=10)


def test_the_pool_says_its_targets() -> None:
    hello = dict(HELLO, gpuTargets=[HELLO["target"], {"platform": "hip", "archs": ["gfx942"], "source": "flag",
                                                   "detail": "--target hip:gfx942"}])
    pool, _ = scripted_pool(by_archs, hello)
    with pool:
        assert pool.target == archpool.Target("cuda", ("80", "90"), "flag", "--target cuda:80,90")
        assert pool.gpu_targets == (pool.target, archpool.Target("hip", ("gfx942",), "flag", "--target hip:gfx942"))
        assert pool.info.gpu_targets == pool.gpu_targets
        assert "cuda 80;90, hip gfx942" in repr(pool)


# --- one real serve


def test_a_pool_of_targets_skips_a_job_it_has_no_arch_for_and_narrows_another(toolchain: None,
                                                                                tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n")
    with archpool.Pool(jobs=1, gpu_targets=["cuda:80,90"], quiet=True, log_dir=str(tmp_path / "logs"),
                       stderr=str(tmp_path / "serve.stderr")) as pool:
        assert pool.gpu_targets == (pool.target,) and pool.target.archs == ("80", "90")
        assert pool.target.platform == "cuda" and pool.target.detail == "--target cuda:80,90"
        only_90a = pool.submit_command(["true"], cwd=str(tmp_path), archs=["90a"], id="only90a")
        from_90 = pool.submit_command(["nvcc", "-fatbin", "{offload-arch-flags}", "-o", "k.fatbin", "k.cu"],
                                      cwd=str(tmp_path), artifacts=["k.fatbin"], archs=[">=90"], id="from90")

        skipped = only_90a.result(timeout=60)
        built = from_90.result(timeout=300)

    assert skipped.skipped and skipped.outcome == "skipped" and not skipped.succeeded
    assert only_90a.exception() is None
    assert skipped.message and skipped.message.startswith("skipped: ") and "90a" in skipped.message
    assert skipped.worker is None and skipped.attempts == 0 and skipped.log_path is None
    assert skipped.target == archpool.JobTarget("cuda", ("80", "90"))
    assert built.succeeded and not built.skipped, built.message
    assert built.target == archpool.JobTarget("cuda", ("90",))
    assert built.target.archs == ("90",)
    assert built.artifacts == (archpool.Artifact(str(tmp_path / "k.fatbin"), ("compute_90", "sm_90")),)
