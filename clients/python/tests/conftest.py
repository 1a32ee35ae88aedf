"""The suite runs the package from this checkout against a real archpool distribution: ``$ARCHPOOL_HOME``, else
the one ``mvn package`` builds in this repository (orchestrator/target/archpool). Tests that need it, or CMake,
Ninja and nvcc, fail under CI=true when they are missing and are skipped elsewhere."""

import os
import shutil
import sys
from pathlib import Path
from typing import Iterator

import pytest

CLIENT = Path(__file__).resolve().parent.parent
REPO = CLIENT.parent.parent
sys.path.insert(0, str(CLIENT))

import archpool  # noqa: E402  (needs the path above)

KERNELS = CLIENT / "examples" / "kernels"


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI=true: nothing this machine can run is skipped)", pytrace=False)
    pytest.skip(what)


@pytest.fixture(scope="session")
def archpool_home() -> Path:
    """The distribution's folder; ARCHPOOL_HOME is set to it for every test."""
    home = Path(os.environ.get("ARCHPOOL_HOME") or REPO / "orchestrator" / "target" / "archpool")
    if not os.access(home / "bin" / "archpool", os.X_OK):
        _missing(f"no archpool distribution at {home}: run 'mvn -B -o -q package -DskipTests', or set ARCHPOOL_HOME")
    os.environ["ARCHPOOL_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def toolchain(archpool_home: Path) -> None:
    """CMake, Ninja and nvcc on the PATH (the jobs use them)."""
    missing = [tool for tool in ("cmake", "ninja", "nvcc") if shutil.which(tool) is None]
    if missing:
        _missing(f"{', '.join(missing)} not on the PATH")


@pytest.fixture(scope="session", autouse=True)
def _cache_of_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A serve that a test starts without a cache folder of its own keeps its build cache in one of this session's
    ($ARCHPOOL_CACHE_DIR), never in the user's (~/.cache/archpool) nor in one a caller's environment names."""
    before = os.environ.get("ARCHPOOL_CACHE_DIR")
    os.environ["ARCHPOOL_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        del os.environ["ARCHPOOL_CACHE_DIR"]
    else:
        os.environ["ARCHPOOL_CACHE_DIR"] = before


@pytest.fixture(autouse=True)
def _no_arch_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pool gets its architecture from the test, never from the caller's CUDAARCHS/HIPARCHS."""
    monkeypatch.delenv("CUDAARCHS", raising=False)
    monkeypatch.delenv("HIPARCHS", raising=False)


@pytest.fixture
def job_dir(tmp_path: Path) -> Path:
    """The jobs' working folder (apart from the FIFO: a command job's default artifacts are files in its cwd)."""
    folder = tmp_path / "job"
    folder.mkdir()
    return folder


@pytest.fixture
def fast_pool(archpool_home: Path, tmp_path: Path) -> Iterator[archpool.Pool]:
    """A pool of the test's own, for command jobs that need no CUDA: two workers, no toolchain check, no cache."""
    pool = archpool.Pool(jobs=2, platform="cuda", arch="90", no_toolchain_check=True, no_cache=True, quiet=True,
                         log_dir=str(tmp_path / "logs"), stderr=str(tmp_path / "serve.stderr"))
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def pool(toolchain: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[archpool.Pool]:
    """One warm pool shared by a module's tests that do not end it: CUDA sm_90, two worker processes."""
    logs = tmp_path_factory.mktemp("serve")
    p = archpool.Pool(jobs=2, platform="cuda", arch="90", log_dir=str(logs / "logs"), quiet=True,
                      stderr=str(logs / "serve.stderr"))
    yield p
    p.shutdown(wait=True, cancel_futures=True)


def pointwise(tmp_path: Path) -> Path:
    """A copy of the example's CMake kernel project (a source folder of the test's own)."""
    return Path(shutil.copytree(KERNELS / "pointwise", tmp_path / "pointwise"))
