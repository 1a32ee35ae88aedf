"""The pure wheel and the sdist, built by pip through the in-tree backend with no package index, installed into
fresh virtual environments."""

import base64
import hashlib
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from support import CLIENT, REPO, env_without_java, run, unavailable

sys.path.insert(0, str(CLIENT / "_backend"))
from archpool_build import _toml  # noqa: E402


def _wheel(make_venv, out: Path) -> Path:
    builder = make_venv()
    builder.pip("wheel", "--no-index", "--no-deps", "--wheel-dir", out, CLIENT)
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_pure_wheel_is_complete_and_its_record_true(make_venv, tmp_path):
    wheel = _wheel(make_venv, tmp_path)
    version = _toml.loads((CLIENT / "pyproject.toml").read_text())["project"]["version"]
    assert wheel.name == f"archpool-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"archpool-{version}.dist-info"
        assert f"{info}/WHEEL" in names and f"{info}/METADATA" in names
        wheel_file = z.read(f"{info}/WHEEL").decode()
        assert "Root-Is-Purelib: true" in wheel_file and "Tag: py3-none-any" in wheel_file
        assert z.read(f"{info}/entry_points.txt").decode() == "[console_scripts]\narchpool = archpool._cli:main\n"
        metadata = z.read(f"{info}/METADATA").decode()
        assert f"Name: archpool\nVersion: {version}\n" in metadata and "Requires-Python: >=3.9" in metadata
        assert "archpool/_cli.py" in names and "archpool/__init__.py" in names
        assert not [n for n in names if "/_dist/" in n or "__pycache__" in n or n.endswith(".pyc")]
        records = [line.rsplit(",", 2) for line in z.read(f"{info}/RECORD").decode().splitlines()]
        assert sorted(name for name, _, _ in records) == sorted(names)
        for name, digest, size in records:
            if name == f"{info}/RECORD":
                assert (digest, size) == ("", "")
                continue
            data = z.read(name)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert int(size) == len(data)


def test_the_pure_wheel_installs_offline_and_its_command_says_what_is_missing(make_venv, path_without_java,
                                                                               distribution, tmp_path):
    wheel = _wheel(make_venv, tmp_path / "wheel")
    target = make_venv()
    target.pip("install", "--no-index", wheel)
    # without a distribution anywhere it names what it looked for, and does not run its own command again
    env = env_without_java(target, path_without_java)
    said = run([target.bin / "archpool", "--version"], env=env, cwd=tmp_path, expect=70, timeout=30)
    assert said.startswith("archpool: archpool on the PATH is ") and "install the platform wheel" in said
    # ARCHPOOL_HOME names the distribution (which here runs on the machine's Java)
    said = run([target.bin / "archpool", "--version"], env={**env, "PATH": f"{target.bin}:/usr/bin:/bin",
                                                            "ARCHPOOL_HOME": str(distribution)}, cwd=tmp_path)
    assert re.fullmatch(r"archpool \S+\n", said), said
    said = run([target.python, "-m", "archpool", "--version"], env={**env, "ARCHPOOL_HOME": "/nonexistent"},
               cwd=tmp_path, expect=70)
    assert "ARCHPOOL_HOME='/nonexistent' holds no executable bin/archpool" in said


def test_pip_installs_the_sdist_offline(make_venv, tmp_path):
    builder = make_venv()
    run([builder.python, "-c", "import sys; sys.path.insert(0, '_backend'); import archpool_build as b;"
         " print(b.build_sdist(sys.argv[1]))", tmp_path], cwd=CLIENT)
    sdist = next(tmp_path.glob("*.tar.gz"))
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = sdist.name[:-len(".tar.gz")]
    for needed in ("PKG-INFO", "pyproject.toml", "README.md", "_backend/archpool_build/__init__.py",
                   "archpool/_cli.py"):
        assert f"{top}/{needed}" in names
    target = make_venv()
    target.pip("install", "--no-index", sdist)
    assert (target.bin / "archpool").is_file()


def test_the_same_sources_make_the_same_bytes(make_venv, tmp_path):
    builder = make_venv()
    built = []
    for n in range(2):
        out = tmp_path / str(n)
        run([builder.python, "-c", "import sys; sys.path.insert(0, '_backend'); import archpool_build as b;"
             " b.build_wheel(sys.argv[1]); b.build_sdist(sys.argv[1])", out], cwd=CLIENT)
        built.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()})
    assert len(built[0]) == 2 and built[0] == built[1]


def test_the_python_version_is_the_maven_version():
    maven = re.search(r"<artifactId>archpool-parent</artifactId>\s*<version>([^<]+)</version>",
                      (REPO / "pom.xml").read_text()).group(1)
    python = _toml.loads((CLIENT / "pyproject.toml").read_text())["project"]["version"]
    assert python == re.sub(r"-SNAPSHOT$", ".dev0", maven)


def test_the_backends_toml_reader_reads_pyproject_as_tomllib_does():
    try:
        import tomllib
    except ImportError:
        unavailable("tomllib, which this test compares the backend's reader with, comes with Python 3.11")
    text = (CLIENT / "pyproject.toml").read_text()
    assert _toml.loads(text) == tomllib.loads(text)


@pytest.mark.parametrize("text, line, what", [
    ('[project]\nname = "a"\nversion = """1"""\n', 3, 'multi-line strings (""")'),
    ('[project]\nname = "a"\nname = "b"\n', 3, "key 'name' is defined twice"),
    ('[[tool]]\n', 1, "arrays of tables"),
    ('[project]\nclassifiers = ["a" "b"]\n', 2, "expected ',' or ']'"),
    ('[project]\nversion = 1.5\n', 2, "expected the end of the line"),
])
def test_the_toml_reader_names_the_line_it_cannot_read(text, line, what):
    with pytest.raises(_toml.TomlError) as raised:
        _toml.loads(text)
    assert f"pyproject.toml line {line}: {what}" in str(raised.value)


def test_the_command_becomes_the_launcher_with_its_arguments_status_and_default_signals(make_venv, tmp_path):
    wheel = _wheel(make_venv, tmp_path / "wheel")
    target = make_venv()
    target.pip("install", "--no-index", wheel)
    # a distribution whose launcher says what it was given
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    launcher = home / "bin" / "archpool"
    launcher.write_text('#!/bin/sh\nprintf "pid %s\\n" "$$"\nprintf "[%s]" "$@"\necho\n'
                        "grep SigIgn /proc/$$/status\nexit 7\n")
    launcher.chmod(0o755)
    called = subprocess.Popen([target.bin / "archpool", "build", "a b", "ü", ""], stdout=subprocess.PIPE, text=True,
                              env={"PATH": "/usr/bin:/bin", "ARCHPOOL_HOME": str(home)})
    output, _ = called.communicate(timeout=60)
    assert called.returncode == 7, output
    pid, args, ignored = output.splitlines()
    assert args == "[build][a b][ü][]"
    # the same process: exec'd, not a child of a Python that waits for it
    assert pid == f"pid {called.pid}"
    # SIGPIPE (13) and SIGXFSZ (25), which Python ignores, are back to their defaults
    mask = int(ignored.split()[1], 16)
    assert not mask & (1 << (13 - 1)) and not mask & (1 << (25 - 1)), ignored


def test_an_editable_install_imports_the_package_from_the_checkout_and_nothing_else(make_venv, distribution,
                                                                                     tmp_path):
    target = make_venv()
    target.pip("install", "--no-index", "-e", CLIENT)
    probe = ("import archpool, importlib.util; print(archpool.__file__);"
             " print([n for n in ('tests', 'examples', 'packaging_tests', 'archpool_build')"
             " if importlib.util.find_spec(n)])")
    assert run([target.python, "-c", probe], cwd=tmp_path) == f"{CLIENT / 'archpool' / '__init__.py'}\n[]\n"
    said = run([target.bin / "archpool", "--version"], cwd=tmp_path,
               env={"PATH": f"{target.bin}:/usr/bin:/bin", "ARCHPOOL_HOME": str(distribution)})
    assert re.fullmatch(r"archpool \S+\n", said), said
