"""connect() before it talks: the socket's path is one that no other user could have changed (the rule ``serve``
applies too), and what accepts the connection must say ``hello`` in time. Plain Python listeners stand in for
``serve``: no distribution is needed."""

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

import archpool
from archpool import _transport

NOBODY = 65534

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="builds folders of another user (chown): needs root")


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder of this user's, mode 0700, with a short path (a socket's path has at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="archpool-check-"))
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def listeners() -> Iterator[List[socket.socket]]:
    made: List[socket.socket] = []
    yield made
    for sock in made:
        sock.close()


def listen(path: Path, made: List[socket.socket]) -> socket.socket:
    """A socket that accepts connections (into its backlog) and never says anything."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(4)
    made.append(sock)
    return sock


def folder(path: Path, mode: int, owner: int = -1) -> Path:
    path.mkdir()
    path.chmod(mode)
    if owner >= 0:
        os.chown(path, owner, owner)
    return path


def bounded(call: Callable[[], object], limit: float = 20) -> BaseException:
    """Runs ``call`` on a thread; what it raised, and fails if it was still running after ``limit`` seconds (a
    connect that hangs must fail the test, not the suite)."""
    raised: List[Optional[BaseException]] = [None]

    def run() -> None:
        try:
            call()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            raised[0] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), f"still running after {limit} s"
    assert raised[0] is not None, "it returned instead of raising"
    return raised[0]


# --- no hello


def test_connect_with_a_timeout_gives_up_on_a_listener_that_never_says_hello(base: Path, listeners: List[socket.socket]
                                                                            ) -> None:
    path = base / "serve.sock"
    listen(path, listeners)

    start = time.monotonic()
    error = bounded(lambda: archpool.connect(path, timeout=2))

    assert 1.5 < time.monotonic() - start < 4
    assert isinstance(error, archpool.ServeError), error
    assert f"archpool serve at {path} accepted the connection but sent no hello within" in str(error)
    assert "stopped (Ctrl-Z?), hung, or not an archpool serve" in str(error)


def test_connect_without_a_timeout_waits_for_the_hello_its_default_time(base: Path, listeners: List[socket.socket],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert _transport.HELLO_TIMEOUT_S == 30
    monkeypatch.setattr(_transport, "HELLO_TIMEOUT_S", 0.5)  # the test's patience, not 30 s
    path = base / "serve.sock"
    listen(path, listeners)

    start = time.monotonic()
    error = bounded(lambda: archpool.connect(path))

    assert time.monotonic() - start < 3
    assert isinstance(error, archpool.ServeError) and "sent no hello within 0.5 s" in str(error), error


HELLO = {"type": "hello", "service": 1, "archpoolVersion": "0.0.0", "pid": 1,
         "target": {"platform": "cuda", "archs": ["90"], "source": "flag"}}


def test_after_hello_answers_may_take_longer_than_the_hello_did(base: Path, listeners: List[socket.socket]) -> None:
    path = base / "serve.sock"
    server = listen(path, listeners)

    def serve() -> None:  # hello at once; the status answer later than the hello's time limit
        conn, _ = server.accept()
        with conn, conn.makefile("rwb") as stream:
            stream.write(json.dumps(HELLO).encode() + b"\n")
            stream.flush()
            request = json.loads(stream.readline())
            time.sleep(1.0)
            stream.write(json.dumps({"type": "status", "requestId": request["requestId"], "clients": 7}).encode()
                         + b"\n")
            stream.flush()
            stream.readline()  # until the client leaves

    stand_in = threading.Thread(target=serve, daemon=True)
    stand_in.start()
    pool = archpool.connect(path, timeout=0.5)

    assert pool.status(timeout=10).clients == 7
    pool.shutdown()
    stand_in.join(10)


def test_a_serve_that_has_too_many_clients_says_so_and_connect_raises_its_reason(
        base: Path, listeners: List[socket.socket]) -> None:
    path = base / "serve.sock"
    server = listen(path, listeners)
    refusal = {"type": "error", "code": "too-many-clients",
               "message": "archpool serve already has 256 clients connected, its limit; disconnect one"}

    def serve() -> None:  # what serve sends instead of hello to one connection over its limit
        conn, _ = server.accept()
        with conn:
            conn.sendall(json.dumps(refusal).encode() + b"\n")

    stand_in = threading.Thread(target=serve, daemon=True)
    stand_in.start()
    with pytest.raises(archpool.ServeError) as error:
        archpool.connect(path, timeout=5)
    assert not isinstance(error.value, archpool.ProtocolError)
    assert "refused the connection (too-many-clients): archpool serve already has 256 clients" in str(error.value)
    stand_in.join(10)


# --- the path


def test_a_folder_others_may_enter_is_refused(base: Path, listeners: List[socket.socket]) -> None:
    run = folder(base / "run", 0o750)
    listen(run / "serve.sock", listeners)

    with pytest.raises(archpool.ServeError) as raised:
        archpool.connect(run / "serve.sock", timeout=2)

    message = str(raised.value)
    assert f"{run} has owner uid {os.geteuid()} and mode 0750" in message
    assert "other users may enter it and connect to serve" in message
    assert "use a folder of your own with mode 0700" in message.lower()


def test_a_wrong_folder_fails_at_once_even_while_the_socket_is_missing(base: Path) -> None:
    run = folder(base / "run", 0o770)

    start = time.monotonic()
    error = bounded(lambda: archpool.connect(run / "serve.sock", timeout=30), limit=40)

    assert time.monotonic() - start < 2, "it waited for the socket instead of refusing the folder"
    assert isinstance(error, archpool.ServeError) and f"{run} has owner uid" in str(error), error
    assert "replace the socket and listen in archpool serve's place" in str(error)


def test_a_group_writable_folder_above_is_refused(base: Path) -> None:
    shared = folder(base / "shared", 0o775)
    run = folder(shared / "run", 0o700)

    with pytest.raises(archpool.ServeError, match=f"{shared} has owner uid .* and mode 0775.*writable by group"):
        archpool.connect(run / "serve.sock", timeout=2)


@needs_root
def test_a_folder_above_of_another_user_is_refused(base: Path, listeners: List[socket.socket]) -> None:
    shared = folder(base / "shared", 0o755, owner=NOBODY)
    mine = folder(shared / "me", 0o700)
    listen(mine / "serve.sock", listeners)

    start = time.monotonic()
    error = bounded(lambda: archpool.connect(mine / "serve.sock", timeout=2))

    assert time.monotonic() - start < 1
    assert isinstance(error, archpool.ServeError), error
    assert f"{shared} has owner uid {NOBODY} and mode 0755" in str(error)
    assert "belongs to another user, who can rename what it holds" in str(error)
    assert "$XDG_RUNTIME_DIR/archpool/serve.sock" in str(error)


@needs_root
def test_a_folder_above_others_may_write_is_refused_unless_it_is_roots_with_the_sticky_bit(base: Path) -> None:
    theirs = folder(base / "theirs", 0o1777, owner=NOBODY)
    folder(theirs / "run", 0o700)
    roots = folder(base / "roots", 0o1777)  # as /tmp
    folder(roots / "run", 0o700)

    with pytest.raises(archpool.ServeError, match=f"{theirs} has owner uid {NOBODY} and mode 1777"):
        archpool.connect(theirs / "run" / "serve.sock", timeout=2)
    with pytest.raises(archpool.ServeError, match="the socket does not exist"):  # the path passes: nothing listens
        archpool.connect(roots / "run" / "serve.sock")


@needs_root
def test_a_socket_of_another_user_is_refused(base: Path, listeners: List[socket.socket]) -> None:
    run = folder(base / "run", 0o700)
    listen(run / "serve.sock", listeners)
    os.chown(run / "serve.sock", NOBODY, NOBODY)

    with pytest.raises(archpool.ServeError) as raised:
        archpool.connect(run / "serve.sock", timeout=2)

    assert f"{run / 'serve.sock'} has owner uid {NOBODY}" in str(raised.value)
    assert "the socket belongs to another user" in str(raised.value)


@needs_root
def test_a_symbolic_link_of_another_user_in_the_path_is_refused_and_one_of_roots_is_followed(base: Path) -> None:
    real = folder(base / "real", 0o755)
    folder(real / "run", 0o700)
    theirs = base / "theirs"
    theirs.symlink_to(real)
    os.lchown(theirs, NOBODY, NOBODY)
    ours = base / "ours"
    ours.symlink_to(real)

    with pytest.raises(archpool.ServeError, match=f"{theirs} has owner uid {NOBODY}.*a symbolic link"):
        archpool.connect(theirs / "run" / "serve.sock", timeout=2)
    with pytest.raises(archpool.ServeError, match="the socket does not exist"):
        archpool.connect(ours / "run" / "serve.sock")
