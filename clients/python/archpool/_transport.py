"""The two ways to reach ``archpool serve``: its stdin/stdout as the child of this process (``--stdio``), or a
Unix domain socket (``--socket PATH``). Each moves whole lines and says, when the other side went away, why."""

import os
import signal
import socket
import stat
import subprocess
import threading
import time
from typing import IO, Iterable, List, Optional

from ._errors import ArchResolutionError, ProtocolError, ServeDiedError, ServeError, UsageError
from ._protocol import MAX_LINE_BYTES
from ._stderr import Sink, StderrDrain, StderrSink

__all__ = ["Transport", "StdioTransport", "SocketTransport", "HELLO_TIMEOUT_S", "check_socket_path"]

#: How long :func:`archpool.connect` without a ``timeout`` waits for the ``hello`` of whatever accepted its
#: connection (``serve`` sends it at once; one that is stopped or hung never does).
HELLO_TIMEOUT_S = 30.0

#: The least time a ``hello`` gets when a ``connect(..., timeout=T)`` found its socket late in those T seconds.
_MIN_HELLO_S = 0.5

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

    def read_hello(self) -> bytes:
        """The first line (``serve``'s ``hello``), as :meth:`read_line`, within this transport's time limit.

        :raises ServeError: no line came in time.
        """
        return self.read_line()

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

    def drop_after_fork(self) -> None:
        """In a forked child: closes the child's copies of the descriptors to ``serve``, sending nothing (no flush,
        no ``shutdown``: the parent's connection goes on as if there were no child)."""
        raise NotImplementedError

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

    def drop_after_fork(self) -> None:
        _drop_descriptors((self._stdin, self._stdout, self._process.stderr))

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

    def __init__(self, path: str, sock: socket.socket, hello_s: float = HELLO_TIMEOUT_S) -> None:
        self.path = path
        self._socket = sock
        self._hello_s = hello_s
        self._reader = sock.makefile("rb")
        self._closed = threading.Event()

    @classmethod
    def connect(cls, path: str, patience_s: float) -> "SocketTransport":
        """Connects, retrying for ``patience_s`` seconds while there is no socket or nobody answers on it yet; the
        ``hello`` then gets what is left of them (at least half a second), or :data:`HELLO_TIMEOUT_S` when
        ``patience_s`` is 0 (one try).

        Nothing tells a process that a socket started to listen: the retries back off from 10 ms to 250 ms. Every
        try first checks the path (:func:`check_socket_path`): a socket still missing is waited for, a folder
        that another user may change fails at once.
        """
        deadline = time.monotonic() + patience_s
        pause = 0.01
        while True:
            check_socket_path(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                # a Unix socket's connect blocks only while the listener's backlog is full (stopped, hung)
                sock.settimeout(max(deadline - time.monotonic(), _MIN_HELLO_S) if patience_s > 0 else HELLO_TIMEOUT_S)
                sock.connect(path)
                sock.settimeout(None)
                hello_s = max(deadline - time.monotonic(), _MIN_HELLO_S) if patience_s > 0 else HELLO_TIMEOUT_S
                return cls(path, sock, hello_s)
            except (FileNotFoundError, ConnectionRefusedError, BlockingIOError, socket.timeout) as e:
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

    def read_hello(self) -> bytes:
        """The first line within the time :meth:`connect` left it; the socket then blocks again (later answers may
        take as long as jobs do)."""
        self._socket.settimeout(self._hello_s)
        try:
            line = self.read_line()
        except socket.timeout as e:
            raise ServeError(f"archpool serve at {self.path} accepted the connection but sent no hello within"
                             f" {self._hello_s:.3g} s: it is stopped (Ctrl-Z?), hung, or not an archpool serve;"
                             f" find what listens there ('ss -xlp | grep {self.path}'), resume it ('kill -CONT PID')"
                             f" or end it and start a new one ('archpool serve --socket {self.path}'), or pass"
                             " connect(..., timeout=SECONDS) to wait longer for one that is busy starting") from e
        self._socket.settimeout(None)
        return line

    def drop_after_fork(self) -> None:
        _drop_descriptors((self._socket,))

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
    elif isinstance(error, (BlockingIOError, socket.timeout)):
        why = (f"the archpool serve at {path} accepts no connection{waited}: the queue of connections it has not"
               " taken yet is full (it is stopped, Ctrl-Z?, or hung); resume it ('kill -CONT PID') or end it")
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


def _drop_descriptors(files: Iterable[object]) -> None:
    """Closes this process's copy of each file's descriptor by putting ``/dev/null`` in its place (``dup2``): the
    pipe or socket loses this process's reference at once, sending nothing, while the number stays valid for the
    file object that still holds it, so that a later ``close()`` of that object can never close an unrelated file
    that reused the number. A file already closed is left as it is."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for file in files:
            try:
                fd = file.fileno()  # type: ignore[attr-defined]
            except (ValueError, OSError):
                continue  # closed
            if fd >= 0:
                os.dup2(null, fd, inheritable=False)
    finally:
        os.close(null)


def check_socket_path(path: str) -> None:
    """Refuses a socket path that another user could have put a socket at, OpenSSH's ``StrictModes`` rule (and
    ``serve``'s own, docs/service.md): with ``uid`` this process's effective uid,

    - the socket, if it exists, is a socket owned by ``uid`` (``serve`` makes it with mode 0600);
    - its folder is owned by ``uid`` with no permission for group or others (``mode & 0o077 == 0``);
    - every folder above it, up to ``/``, is owned by ``uid`` or root and writable by neither group nor others
      (``mode & 0o022 == 0``), unless root owns it and it has the sticky bit (``/tmp``, mode 1777).

    Each component of the absolute, normalised path is taken as it is, symbolic links unresolved
    (``os.stat(follow_symlinks=False)``): a link must be owned by ``uid`` or root (its own mode means nothing),
    and the walk goes on up from the folder that holds it. Where the link is the socket's folder, the folder it
    leads to must also be owned by ``uid`` with mode 0700 or narrower (the folders above that one are not walked).
    A missing component is skipped: the socket, or a folder ``serve`` will create, may appear later.

    :raises ServeError: naming the path, its owner and mode, what that lets another user do, and the fix.
    """
    uid = os.geteuid()
    full = os.path.abspath(path)
    st = _lstat(full, path)
    if st is not None:
        if not stat.S_ISSOCK(st.st_mode):
            raise ServeError(f"cannot connect to archpool serve at {path}: {full} is {_kind(st)} (owner uid"
                             f" {st.st_uid}, mode {_mode(st)}), not a socket; give the path of the socket that"
                             f" 'archpool serve --socket PATH' listens on")
        if st.st_uid != uid:
            raise _unsafe(path, full, st, uid, f"the socket belongs to another user, whose process listens there"
                          " in archpool serve's place: it would receive every job this process sends (commands,"
                          " environments, paths) and could answer with results of its own")
    folder = os.path.dirname(full)
    st = _lstat(folder, path)
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            _check_link(path, folder, st, uid)
            st = _stat_followed(folder, path)
        if st is not None:
            if st.st_uid != uid:
                raise _unsafe(path, folder, st, uid, "the socket's folder belongs to another user, who can remove"
                              " the socket and listen in archpool serve's place")
            if st.st_mode & 0o077:
                open_to = "enter it and connect to serve, whose jobs run as you"
                if st.st_mode & 0o022:
                    open_to = "replace the socket and listen in archpool serve's place"
                raise _unsafe(path, folder, st, uid, f"the socket's folder gives permissions to group or others, so"
                              f" other users may {open_to}")
    above = folder
    while above != "/":
        above = os.path.dirname(above)
        st = _lstat(above, path)
        if st is None:
            continue
        if st.st_uid not in (uid, 0):
            what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "a folder"
            raise _unsafe(path, above, st, uid, f"{what} above the socket belongs to another user, who can rename"
                          " what it holds and put a folder with a socket of their own in its place, listening"
                          " in archpool serve's place")
        if stat.S_ISLNK(st.st_mode):
            continue
        if st.st_mode & 0o022 and not (st.st_uid == 0 and st.st_mode & stat.S_ISVTX):
            raise _unsafe(path, above, st, uid, "a folder above the socket is writable by group or others (and"
                          " not root's with the sticky bit, as /tmp is), so other users can rename what it holds"
                          " and put a folder with a socket of their own in its place, listening in archpool"
                          " serve's place")


def _check_link(path: str, link: str, st: os.stat_result, uid: int) -> None:
    if st.st_uid not in (uid, 0):
        raise _unsafe(path, link, st, uid, "a symbolic link in the path belongs to another user, who can point it"
                      " at a folder with a socket of their own, listening in archpool serve's place")


def _lstat(component: str, path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(component, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise ServeError(f"cannot connect to archpool serve at {path}: cannot check {component}:"
                         f" {e.strerror or e}; use a folder of your own with mode 0700, e.g."
                         " $XDG_RUNTIME_DIR/archpool/serve.sock") from e


def _stat_followed(component: str, path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(component)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a link to nothing yet
    except OSError as e:
        raise ServeError(f"cannot connect to archpool serve at {path}: cannot check {component}:"
                         f" {e.strerror or e}; use a folder of your own with mode 0700, e.g."
                         " $XDG_RUNTIME_DIR/archpool/serve.sock") from e


def _unsafe(path: str, component: str, st: os.stat_result, uid: int, why: str) -> ServeError:
    return ServeError(f"refusing to connect to archpool serve at {path}: {component} has owner uid {st.st_uid} and"
                      f" mode {_mode(st)} (this process runs as uid {uid}): {why}. Use a folder of your own with"
                      " mode 0700, in folders only you or root may write, e.g."
                      " $XDG_RUNTIME_DIR/archpool/serve.sock (archpool serve creates a missing folder with mode"
                      " 0700)")


def _mode(st: os.stat_result) -> str:
    return f"{stat.S_IMODE(st.st_mode):04o}"


def _kind(st: os.stat_result) -> str:
    if stat.S_ISDIR(st.st_mode):
        return "a folder"
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if stat.S_ISREG(st.st_mode):
        return "a regular file"
    return "a special file"
