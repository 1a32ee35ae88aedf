"""The client process ending mid-build: killed with SIGKILL, its serve's stdin closes, and serve, every worker and
the job's processes are gone within 2 seconds (docs/service.md, "Ending"); ending without a shutdown, it cancels
the jobs and waits for serve to exit."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Set

from procs import Sleeper, alive, cmdline, descendants, kill_all, wait_gone
from conftest import CLIENT

CLIENT_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import archpool

    pool = archpool.Pool(jobs=2, platform="cuda", arch="90", log_dir=sys.argv[2], quiet=True)
    future = pool.submit_command(sys.argv[4:], cwd=sys.argv[3])
    future.wait_accepted()
    print(pool.info.pid, flush=True)
    future.result()
""")


def test_serve_its_workers_and_the_jobs_processes_end_within_two_seconds(toolchain: None, tmp_path: Path) -> None:
    sleeper = Sleeper(tmp_path)
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    client = subprocess.Popen([sys.executable, "-c", CLIENT_SCRIPT, str(CLIENT), str(tmp_path / "logs"),
                               str(job_dir), *sleeper.argv], stdout=subprocess.PIPE, text=True)
    everything: Set[int] = set()
    try:
        serve_pid = int(client.stdout.readline())  # type: ignore[union-attr]
        sleep_pids = sleeper.wait_started()
        everything = {serve_pid} | descendants(serve_pid)
        assert sleep_pids - {client.pid} <= everything  # the client has the marker in its own argv
        assert len(everything) >= 4, f"serve, two workers and the job expected below the client: {everything}"

        os.kill(client.pid, signal.SIGKILL)
        client.wait()

        left = wait_gone(everything, timeout=2.0)
        assert not left, "still running 2 s after the client was killed: " + "; ".join(
            f"{pid} {cmdline(pid)}" for pid in sorted(left))
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        for stream in (client.stdin, client.stdout):
            if stream is not None:
                stream.close()
        sleeper.close()
        kill_all(everything)


ENDS_WITHOUT_SHUTDOWN = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import archpool

    pool = archpool.Pool(jobs=1, platform="cuda", arch="90", log_dir=sys.argv[2], quiet=True)
    future = pool.submit_command(sys.argv[4:], cwd=sys.argv[3])
    future.wait_accepted()
    print(pool.info.pid, flush=True)
    sys.stdin.readline()
    # the script ends here, the job still running and the pool not shut down
""")


def test_a_client_that_ends_without_shutdown_leaves_nothing_running(toolchain: None, tmp_path: Path) -> None:
    sleeper = Sleeper(tmp_path)
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    client = subprocess.Popen([sys.executable, "-c", ENDS_WITHOUT_SHUTDOWN, str(CLIENT), str(tmp_path / "logs"),
                               str(job_dir), *sleeper.argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    everything: Set[int] = set()
    try:
        serve_pid = int(client.stdout.readline())  # type: ignore[union-attr]
        sleeper.wait_started()
        everything = {serve_pid} | descendants(serve_pid)

        client.stdin.close()  # type: ignore[union-attr]

        assert client.wait(timeout=30) == 0
        left = alive(everything)
        assert not left, "still running once the client exited: " + "; ".join(
            f"{pid} {cmdline(pid)}" for pid in sorted(left))
        assert (tmp_path / "logs" / "report.json").is_file(), "serve did not end its way (no report)"
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        for stream in (client.stdin, client.stdout):
            if stream is not None:
                stream.close()
        sleeper.close()
        kill_all(everything)
