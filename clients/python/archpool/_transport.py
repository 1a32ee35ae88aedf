"""The two ways to reach ``archpool serve``: its stdin/stdout as the child of this process (``--stdio``), or a
Unix domain socket (``--socket PATH``). Each moves whole lines and says, when the other side went away, why."""

import os
import signal
import socket
import subprocess
import threading
import time
from typing import IO, List, Optional

from ._errors import ArchResolutionError, ProtocolError, ServeDiedError, ServeError, UsageError
from ._protocol import MAX_LINE_BYTES
from ._stderr import Sink, StderrDrain, StderrSink

__all__ = ["Transport", "StdioTransport", "SocketTransport"]

#: How long ``serve`` may take to exit after its stdin closed (it promises 2 s) before it is killed.
_EXIT_GRACE_S = 10.0

#: How long to wait for the rest of ``serve``'s stderr once it exited.
_STDERR_GRACE_S = 2.0


class Transport:
    """Whole lines both ways. ``read_line`` is called from one thread only; ``write`` from any, one at a time."""

    #: Whether closing this transport ends ``serve`` (stdio) or only this client's connection (socket).
    owns_serve = False

    def read_line(self) -> bytes:
        """The next line, ``\\n`` included; ``b""`` at EOF."""
        raise NotImplementedError

    def write(self, line: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Ends this side: ``serve`` sees EOF. Safe to call more than once and from any thread."""
        raise NotImplementedError

    def ended(self) -> ServeError:
        """Once ``read_line`` returned EOF: why the other side went away, as the exception for what was pending."""
        raise NotImplementedError

    def start_failure(self) -> ServeError:
        """EOF before ``hello``: the exception that says why."""
        raise NotImplementedError

    def finish(self) -> Optional[int]:
        """After the reader's last line: releases everything; ``serve``'s exit status where this side owns it."""
        raise NotImplementedError

    def release_stderr(self) -> None:
        """``hello`` came: ``serve``'s held-back stderr may go to its sink."""

    def describe(self) -> str:
        raise NotImplementedError


class StdioTransport(Transport):
    """``archpool serve --stdio`` as a child process, in a session of its own (a Ctrl-C reaches this process,
    which decides; ``serve`` ends when its stdin closes, also when this process is killed)."""

    owns_serve = True

    def __init__(self, command: List[str], stderr: StderrSink) -> None:
        sink = Sink.open(stderr)
        self.command = command
        try:
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            sink.close()
            raise ServeError(f"could not start {command[0]}: {e.strerror or e}; check that it is an archpool"
                             " launcher and can run here (archpool=, ARCHPOOL_HOME)") from e
        self.pid = self._process.pid
        assert self._process.stdin and self._process.stdout and self._process.stderr
        self._stdin: IO[bytes] = self._process.stdin
        self._stdout: IO[bytes] = self._process.stdout
        self._stderr = StderrDrain(self._process.stderr, sink, name=f"archpool-serve-{self.pid}-stderr")
        self._close_lock = threading.Lock()

    def read_line(self) -> bytes:
        return _bounded(self._stdout.readline(MAX_LINE_BYTES + 1))

    def write(self, line: bytes) -> None:
        try:
            self._stdin.write(line)
            self._stdin.flush()
        except ValueError as e:  # written after close(): the connection is over
            raise BrokenPipeError(str(e)) from e

    def close(self) -> None:
        with self._close_lock:
            if self._stdin.closed:
                return
            try:
                self._stdin.close()
            except BrokenPipeError:
                # serve is gone and left buffered bytes unread; its exit is what the reader reports.
                pass

    def release_stderr(self) -> None:
        self._stderr.release()

    def wait(self, timeout: Optional[float] = None) -> int:
        """Waits for ``serve`` to exit; after ``timeout`` seconds it is killed (SIGKILL, its process group)."""
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self._process.wait()

    def kill(self) -> None:
        """SIGKILL to ``serve``'s process group; its workers end when their stdin closes."""
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # already gone

    def start_failure(self) -> ServeError:
        """``serve`` closed its stdout before any ``hello``: the one exception for what it printed and its status."""
        status = self.finish()
        said = self._stderr.held_text().strip()
        if status == 2:
            kind = UsageError
        elif status == 3:
            kind = ArchResolutionError
        else:
            kind = ServeError
        message = said or f"{os.path.basename(self.command[0])} serve printed nothing on stderr"
        return kind(f"{message}\n(archpool serve exited with {_status_text(status)} before it answered)",
                    exit_code=status, stderr=said)

    def ended(self) -> ServeError:
        status = self.finish()
        tail = self._stderr.tail().rstrip()
        message = f"archpool serve (pid {self.pid}) exited with {_status_text(status)}"
        if tail:
            message += "; its last stderr lines:\n" + "\n".join("  " + line for line in tail.splitlines())
        return ServeDiedError(message, exit_code=status, stderr=tail)

    def finish(self) -> Optional[int]:
        """After EOF or ``bye``: the exit status, once ``serve`` exited and its stderr was drained."""
        self.close()
        status = self.wait(_EXIT_GRACE_S)
        self._stderr.join(_STDERR_GRACE_S)
        self._stdout.close()
        return status

    def describe(self) -> str:
        return f"archpool serve --stdio (pid {self.pid})"


class SocketTransport(Transport):
    """A connection to ``archpool serve --socket PATH`` started by someone else."""

    def __init__(self, path: str, sock: socket.socket) -> None:
        self.path = path
        self._socket = sock
        self._reader = sock.makefile("rb")
        self._closed = threading.Event()

    @classmethod
    def connect(cls, path: str, patience_s: float) -> "SocketTransport":
        """Connects, retrying for ``patience_s`` seconds while there is no socket or nobody answers on it yet.

        Nothing tells a process that a socket started to listen: the retries back off from 10 ms to 250 ms.
        """
        deadline = time.monotonic() + patience_s
        pause = 0.01
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                return cls(path, sock)
            except (FileNotFoundError, ConnectionRefusedError) as e:
                sock.close()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _not_there(path, e, patience_s) from e
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.25)
            except OSError as e:
                sock.close()
                raise ServeError(f"cannot connect to archpool serve at {path}: {e.strerror or e}") from e

    def read_line(self) -> bytes:
        try:
            return _bounded(self._reader.readline(MAX_LINE_BYTES + 1))
        except OSError:
            if self._closed.is_set():
                return b""  # this side disconnected while the reader waited
            raise

    def write(self, line: bytes) -> None:
        self._socket.sendall(line)

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the other side already closed it: nothing left to shut down
        self._socket.close()

    def finish(self) -> Optional[int]:
        self.close()
        self._reader.close()
        return None

    def ended(self) -> ServeError:
        return ServeDiedError(f"archpool serve at {self.path} closed the connection (it was stopped, or died)")

    def start_failure(self) -> ServeError:
        self.close()
        return ServeError(f"archpool serve at {self.path} closed the connection before it said hello")

    def describe(self) -> str:
        return f"archpool serve --socket {self.path}"


def _not_there(path: str, error: OSError, patience_s: float) -> ServeError:
    waited = f" within {patience_s:g} s" if patience_s > 0 else ""
    if isinstance(error, FileNotFoundError):
        why = f"no archpool serve at {path}: the socket does not exist{waited}"
    else:
        why = f"no archpool serve answers at {path}{waited} (a socket left by one that died?)"
    return ServeError(f"{why}; start one with 'archpool serve --socket {path}' (it replaces a stale socket), or"
                      " pass connect(..., timeout=SECONDS) to wait for one that is starting")


def _bounded(line: bytes) -> bytes:
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"archpool serve sent a line longer than {MAX_LINE_BYTES} bytes")
    return line


def _status_text(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"{name} (killed)"
    return f"status {status}"
