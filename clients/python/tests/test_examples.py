"""The examples, run against the real distribution (build_kernels.py also by PythonExampleIT, as a program)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import pytest

import archpool
from conftest import CLIENT, KERNELS


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, CLIENT / "examples" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Task(NamedTuple):
    name: str
    source_dir: Path
    build_dir: Path
    defines: dict


def test_the_gt4py_runner_builds_its_tasks_and_raises_for_one_that_fails(toolchain: None, tmp_path: Path) -> None:
    runner_module = load("gt4py_runner")
    good = Task("axpy_f64", KERNELS / "pointwise", tmp_path / "axpy", {"POINTWISE_OP": "axpy", "POINTWISE_DTYPE": "double"})
    bad = Task("bad", KERNELS / "pointwise", tmp_path / "bad", {"POINTWISE_OP": "axpy", "POINTWISE_DTYPE": "nosuchtype"})

    with runner_module.ArchpoolRunner(platform="cuda", arch="90", jobs=2, log_dir=str(tmp_path / "logs"),
                                      stderr=str(tmp_path / "serve.stderr")) as runner:
        futures = [runner.submit(good), runner.submit(bad)]
        result = futures[0].result(timeout=300)
        with pytest.raises(archpool.BuildError) as raised:
            futures[1].result(timeout=300)

    assert archpool.Artifact(str(tmp_path / "axpy" / "libpointwise_axpy_double.so"), ("compute_90", "sm_90")) \
        in result.artifacts
    assert raised.value.result.outcome == "failed" and "nosuchtype" in str(raised.value)


def test_build_kernels_builds_one_kernel_in_process(toolchain: None, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    build_kernels = load("build_kernels")

    status = build_kernels.main(["--arch", "90", "-j", "1", "--out", str(tmp_path / "out"), "--only", "softmax"])

    out = capsys.readouterr().out
    assert status == 0, out
    assert "softmax.fatbin [compute_90 sm_90]" in out and "1 of 1 kernels built" in out
