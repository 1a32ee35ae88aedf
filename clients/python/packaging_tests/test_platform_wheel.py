"""The platform wheel (scripts/build-wheel.sh): installed into a fresh virtual environment, it runs archpool and
its builds with no Java on the machine but the runtime it carries, and its tag is the glibc that runtime needs."""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from support import CLIENT, REPO, Venv, env_without_java, run, unavailable

sys.path.insert(0, str(CLIENT / "_backend"))
from archpool_build import _elf  # noqa: E402

_VERSION_NEEDS = re.compile(r"^Version needs section .*?(?=^\S|\Z)", re.S | re.M)


@pytest.fixture(scope="module")
def platform_wheel(distribution, tmp_path_factory):
    jlink = os.path.join(os.environ["JAVA_HOME"], "bin", "jlink") if os.environ.get("JAVA_HOME") else "jlink"
    if shutil.which(jlink) is None:
        unavailable("jlink not found: scripts/build-wheel.sh needs a JDK 17+ (Debian: openjdk-17-jdk-headless)")
    out = tmp_path_factory.mktemp("wheels")
    built = subprocess.run(["bash", REPO / "scripts" / "build-wheel.sh", distribution, out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = Path(built.stdout.strip())
    assert wheel.parent == out and wheel.is_file(), built.stdout
    return wheel, built.stderr


@pytest.fixture(scope="module")
def installed(platform_wheel, make_venv):
    venv_ = make_venv()
    venv_.pip("install", "--no-index", platform_wheel[0])
    return venv_


def _bundled(venv_: Venv) -> Path:
    return venv_.site_packages() / "archpool" / "_dist"


def _elf_files(root: Path):
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and _elf.is_elf(p))


def test_the_tag_is_the_highest_glibc_version_readelf_finds(platform_wheel, installed):
    if shutil.which("readelf") is None:
        unavailable("readelf not found: install binutils")
    wheel, said = platform_wheel
    highest = (0, 0)
    files = _elf_files(_bundled(installed))
    assert len(files) > 10, files
    for path in files:
        needs = "".join(_VERSION_NEEDS.findall(run(["readelf", "-V", "-W", path])))
        names = set(re.findall(r"Name: (\S+)", needs))
        # the backend's own reader agrees with readelf on every file
        assert names == {v for vs in _elf.read_needs(path).versions.values() for v in vs}, path
        for name in names:
            version = _elf.glibc_version(name)
            highest = max(highest, version or (0, 0))
    tag = f"manylinux_{highest[0]}_{highest[1]}_x86_64"
    assert wheel.name.split("-")[-1].split(".")[0] == tag
    assert f"needs glibc {highest[0]}.{highest[1]}" in said
    with zipfile.ZipFile(wheel) as z:
        wheel_file = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))).decode()
    assert "Root-Is-Purelib: false" in wheel_file and f"Tag: py3-none-{tag}" in wheel_file


def test_pip_keeps_what_is_executable_and_leaves_out_the_path_bound_cds_archives(installed):
    bundled = _bundled(installed)
    for program in ("bin/archpool", "runtime/bin/java", "runtime/lib/jspawnhelper"):
        assert os.access(bundled / program, os.X_OK), program
    jars = list((bundled / "lib").glob("*.jar"))
    assert jars and not [j for j in jars if j.stat().st_mode & stat.S_IXUSR]
    assert not list((bundled / "lib").glob("*.jsa"))
    assert (bundled / "runtime" / "lib" / "server" / "classes.jsa").is_file()
    # jlink's links between license files became files
    assert (bundled / "runtime" / "legal" / "java.xml" / "LICENSE").read_text() == \
        (bundled / "runtime" / "legal" / "java.base" / "LICENSE").read_text()


def test_without_any_java_the_command_builds_on_the_bundled_runtime(installed, path_without_java, tmp_path):
    if shutil.which("nvcc", path=path_without_java) is None:
        unavailable("nvcc not found: install the CUDA toolkit (12.x or 13.x)")
    bundled = _bundled(installed)
    env = env_without_java(installed, path_without_java)
    assert re.fullmatch(r"archpool \S+\n", run(["archpool", "--version"], env=env, cwd=tmp_path))
    found = run(["python", "-c", "import archpool; print(archpool.find_archpool())"], env=env, cwd=tmp_path)
    assert found == f"{bundled / 'bin' / 'archpool'}\n"

    (tmp_path / "k.cu").write_text("__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n")
    (tmp_path / "archpool.json").write_text(json.dumps({"version": 1, "jobs": [
        {"id": "k", "kind": "command", "argv": ["nvcc", "{offload-arch-flags}", "-c", "k.cu", "-o", "k.o"]}]}))
    built = run(["archpool", "build", "archpool.json", "--arch", "90", "--platform", "cuda"], cwd=tmp_path,
                env={**env, "ARCHPOOL_JAVA_OPTS": "-XshowSettings:properties"})
    assert f"java.home = {bundled / 'runtime'}" in built
    assert "1 of 1 jobs succeeded" in built
    assert (tmp_path / "k.o").stat().st_size > 0

    # the installed package's Pool starts the bundled distribution's serve
    pooled = run(["python", "-c", "import archpool, sys\n"
                  "with archpool.Pool(jobs=1, platform='cuda', arch='90', quiet=True) as pool:\n"
                  "    result = pool.submit_command(['sh', '-c', 'echo $CUDAARCHS > pooled.txt'], cwd='.').result(120)\n"
                  "print(result.succeeded, archpool.__file__)\n"], env=env, cwd=tmp_path)
    assert pooled.endswith(f"\nTrue {bundled.parent / '__init__.py'}\n"), pooled
    assert (tmp_path / "pooled.txt").read_text() == "90\n"


def test_exit_statuses_and_signals_reach_the_caller_unchanged(installed, path_without_java, tmp_path):
    env = env_without_java(installed, path_without_java)
    assert "Missing required parameter" in run(["archpool", "build"], env=env, cwd=tmp_path, expect=2)
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    (tmp_path / "archpool.json").write_text(json.dumps({"version": 1, "jobs": [
        {"id": "fails", "kind": "command", "argv": ["sh", "-c", "exit 3"]},
        {"id": "waits", "kind": "command", "argv": ["sh", "-c", f"echo up > {fifo}; exec sleep 300"]}]}))
    build = subprocess.Popen(["archpool", "build", "archpool.json", "--arch", "90", "--platform", "cuda", "-j2",
                              "-k", "--no-toolchain-check"], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        opened = threading.Thread(target=lambda: fifo.read_text())
        opened.start()
        opened.join(timeout=120)
        assert not opened.is_alive(), "the waiting job did not start"
        # the command became the launcher, which became the JVM: the signal reaches archpool itself
        assert "java" in Path(f"/proc/{build.pid}/exe").resolve().name
        build.send_signal(signal.SIGTERM)
        output, _ = build.communicate(timeout=120)
    finally:
        if build.poll() is None:
            build.kill()
        if opened.is_alive():
            fifo.write_text("")
    assert build.returncode == 130, output
