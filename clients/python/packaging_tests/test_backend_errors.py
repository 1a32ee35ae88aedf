"""What the build backend says when it is given something it cannot build from: one message naming the problem
and the fix, no traceback."""

import os
import shutil
import sys
from pathlib import Path

import pytest

from support import CLIENT

sys.path.insert(0, str(CLIENT / "_backend"))
import archpool_build  # noqa: E402
from archpool_build import _elf  # noqa: E402


def _dist(root: Path, runtime: bool = True) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "lib").mkdir()
    launcher = root / "bin" / "archpool"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    if runtime:
        (root / "runtime" / "bin").mkdir(parents=True)
        shutil.copy2("/bin/true", root / "runtime" / "bin" / "java")
    return root


def _refused(tmp_path: Path, settings: dict) -> str:
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as raised:
        archpool_build.build_wheel(str(out), settings)
    assert not out.exists() or not list(out.iterdir()), "a refused build leaves nothing behind"
    return str(raised.value)


def test_a_folder_that_is_no_distribution(tmp_path):
    said = _refused(tmp_path, {"dist": str(tmp_path / "nothing")})
    assert "holds no executable bin/archpool" in said and "mvn -B -q package" in said


def test_a_distribution_without_a_runtime_names_the_script_that_adds_one(tmp_path):
    dist = _dist(tmp_path / "dist", runtime=False)
    assert f"add it with scripts/bundle-runtime.sh {dist}" in _refused(tmp_path, {"dist": str(dist)})


def test_a_link_out_of_the_distribution(tmp_path):
    dist = _dist(tmp_path / "dist")
    (tmp_path / "outside.txt").write_text("x")
    os.symlink(tmp_path / "outside.txt", dist / "lib" / "linked.txt")
    said = _refused(tmp_path, {"dist": str(dist)})
    assert f"{dist / 'lib' / 'linked.txt'} links to {tmp_path / 'outside.txt'}, which is not a file inside" in said


def test_an_unknown_setting(tmp_path):
    assert "unknown setting 'dsit'; the settings are dist" in _refused(tmp_path, {"dsit": "x"})


def test_a_setting_given_twice(tmp_path):
    assert "setting 'dist' is given 2 times" in _refused(tmp_path, {"dist": ["a", "b"]})


def test_an_elf_file_of_another_class(tmp_path):
    thirty_two = tmp_path / "x"
    thirty_two.write_bytes(b"\x7fELF\x01\x01\x01" + bytes(60))
    with pytest.raises(_elf.ElfError, match="not a 64-bit little-endian ELF file"):
        _elf.read_needs(thirty_two)
