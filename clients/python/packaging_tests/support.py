"""What the packaging tests share: the repository, fresh virtual environments, a PATH without Java, and the rule
that under CI=true a missing tool fails a test instead of skipping it."""

import os
import shutil
import subprocess
import venv
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]
CLIENT = REPO / "clients" / "python"
DISTRIBUTION = REPO / "orchestrator" / "target" / "archpool"


def unavailable(reason: str) -> None:
    """Skips the test, or fails it under CI=true, where everything the machine can run must run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing tool fails the test)", pytrace=False)
    pytest.skip(reason)


def run(argv: List[str], env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
        expect: int = 0, timeout: float = 300) -> str:
    """argv's stdout and stderr together, asserting its exit status."""
    done = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    assert done.returncode == expect, f"{argv} ended with {done.returncode}, not {expect}:\n{done.stdout}"
    return done.stdout


class Venv:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.python = self.bin / "python"

    def site_packages(self) -> Path:
        return Path(run([self.python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"]).strip())

    def pip(self, *args: object) -> str:
        return run([self.python, "-m", "pip", "--disable-pip-version-check", "--no-input", *args])


@pytest.fixture(scope="session")
def make_venv(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Venv]:
    """A factory of fresh virtual environments of this interpreter, with pip and nothing else."""
    def make() -> Venv:
        root = tmp_path_factory.mktemp("venv")
        try:
            venv.create(root, with_pip=True, clear=True)
        except (subprocess.CalledProcessError, OSError) as e:
            unavailable(f"cannot make a virtual environment with pip ({e}); on Debian: apt-get install python3-venv")
        return Venv(root)
    return make


@pytest.fixture(scope="session")
def distribution() -> Path:
    if not (DISTRIBUTION / "bin" / "archpool").is_file():
        unavailable(f"no distribution in {DISTRIBUTION}: build it with mvn -B -q package -DskipTests")
    return DISTRIBUTION


@pytest.fixture(scope="session")
def path_without_java(tmp_path_factory: pytest.TempPathFactory) -> str:
    return link_programs_without_java(tmp_path_factory.mktemp("path-without-java"))


def link_programs_without_java(folder: Path) -> str:
    """folder, filled with links to every program on this PATH except Java's (java, and the tools of a JDK): the
    PATH of a machine without Java. scripts/test-python.sh runs the client's tests with it."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            program = os.path.join(directory, name)
            real = os.path.realpath(program)
            if (folder / name).exists() or not (os.path.isfile(real) and os.access(real, os.X_OK)):
                continue
            beside = os.path.join(os.path.dirname(real), "java")
            if name == "java" or (os.path.isfile(beside) and not os.path.islink(beside)):
                continue  # java, or a tool of a JDK (whose bin/ holds java itself, not a link to one)
            (folder / name).symlink_to(program)
    assert shutil.which("java", path=str(folder)) is None
    return str(folder)


def env_without_java(venv_: Venv, path_without_java: str, **extra: str) -> Dict[str, str]:
    """The environment of a user with only this venv and no Java: no java on the PATH, no JAVA_HOME, no
    ARCHPOOL_HOME."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "ARCHPOOL_HOME", "PYTHONPATH")}
    env["PATH"] = f"{venv_.bin}{os.pathsep}{path_without_java}"
    env.update(extra)
    assert shutil.which("java", path=env["PATH"]) is None
    return env
