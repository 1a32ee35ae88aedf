"""find_archpool: explicit, then $ARCHPOOL_HOME, then the bundled distribution, then the PATH."""

import os
from pathlib import Path

import pytest

import archpool


def launcher(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    script = folder / "bin" / "archpool"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    return script


def test_an_explicit_path_wins_over_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = launcher(tmp_path / "mine")
    monkeypatch.setenv("ARCHPOOL_HOME", str(launcher(tmp_path / "home").parent.parent))
    assert archpool.find_archpool(str(mine)) == str(mine)


def test_an_explicit_path_that_is_no_launcher_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(archpool.ArchpoolNotFoundError, match="not an executable file") as e:
        archpool.find_archpool(str(tmp_path / "nothere" / "archpool"))
    assert str(tmp_path / "nothere" / "archpool") in str(e.value)


def test_archpool_home_comes_before_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = launcher(tmp_path / "home")
    monkeypatch.setenv("PATH", str(launcher(tmp_path / "onpath").parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("ARCHPOOL_HOME", str(tmp_path / "home"))
    assert archpool.find_archpool() == str(home)


def test_an_archpool_home_without_a_launcher_is_an_error_not_a_fall_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(launcher(tmp_path / "onpath").parent))
    monkeypatch.setenv("ARCHPOOL_HOME", str(tmp_path / "empty"))
    with pytest.raises(archpool.ArchpoolNotFoundError, match="ARCHPOOL_HOME=.*holds no executable bin/archpool"):
        archpool.find_archpool()


def test_the_path_is_the_last_resort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARCHPOOL_HOME", raising=False)
    onpath = launcher(tmp_path / "onpath")
    monkeypatch.setenv("PATH", str(onpath.parent))
    assert archpool.find_archpool() == str(onpath)


def test_nothing_found_names_every_place_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARCHPOOL_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(archpool.ArchpoolNotFoundError) as e:
        archpool.find_archpool()
    message = str(e.value)
    assert "ARCHPOOL_HOME" in message
    assert os.path.join("archpool", "_dist", "bin", "archpool") in message
    assert "on the PATH" in message
    assert len(e.value.searched) == 3
