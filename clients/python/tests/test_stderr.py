"""serve's stderr: drained on a thread (serve never blocks on it), forwarded where the pool says, and its last lines
in the error when serve dies."""

import concurrent.futures as cf
import io
import os
import signal
import sys
from pathlib import Path

import pytest

import archpool


def test_a_lot_of_stderr_never_blocks_serve_and_all_of_it_arrives(toolchain: None, tmp_path: Path) -> None:
    sink = io.StringIO()
    line = "x" * 150
    # every failure's log tail is printed on serve's stderr: far more than a pipe holds (64 KiB)
    with archpool.Pool(jobs=2, platform="cuda", arch="90", log_dir=str(tmp_path / "logs"), stderr=sink) as pool:
        futures = [pool.submit_command(["sh", "-c", f'for i in 1 2 3 4 5 6 7 8 9 10; do echo "{line} $1.$i"; done;'
                                                    " exit 1", "sh", str(n)], cwd=str(tmp_path), id=f"noisy{n}")
                   for n in range(80)]
        done, not_done = cf.wait(futures, timeout=120)
        assert not not_done
    text = sink.getvalue()
    assert len(text) > 128 * 1024
    assert "target: cuda 90 (flag, --arch 90)" in text
    assert f"{line} 79.10" in text
    assert "archpool serve: 80 job(s) ran" in text


def test_stderr_may_go_to_sys_stderr(toolchain: None, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with archpool.Pool(jobs=1, platform="cuda", arch="90", log_dir=str(tmp_path / "logs")) as pool:
        pool.submit_command(["true"], cwd=str(tmp_path)).result(timeout=60)
    assert "target: cuda 90 (flag, --arch 90)" in capsys.readouterr().err


def test_a_serve_that_dies_is_described_with_its_last_stderr_lines(toolchain: None, tmp_path: Path) -> None:
    sink = io.StringIO()
    pool = archpool.Pool(jobs=1, platform="cuda", arch="90", log_dir=str(tmp_path / "logs"), stderr=sink)
    failed = pool.submit_command(["sh", "-c", "echo the-last-words; exit 1"], cwd=str(tmp_path), id="words")
    assert isinstance(failed.exception(timeout=60), archpool.BuildError)
    pending = pool.submit_command(["sleep", "300"], cwd=str(tmp_path))
    pending.wait_accepted(30)

    os.kill(pool.info.pid, signal.SIGKILL)

    error = pending.exception(timeout=30)
    assert isinstance(error, archpool.ServeDiedError)
    assert "its last stderr lines" in str(error) and "the-last-words" in str(error)
    assert "the-last-words" in error.stderr
    pool.shutdown()


def test_a_stderr_that_is_no_sink_is_refused_before_serve_starts(archpool_home: Path) -> None:
    with pytest.raises(TypeError, match="stderr must be None"):
        archpool.Pool(arch="90", stderr=42)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        archpool.Pool(arch="90", stderr=os.path.join(sys.prefix, "no", "such", "folder", "serve.log"))
