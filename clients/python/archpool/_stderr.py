"""``archpool serve``'s stderr, drained on a thread of its own so that ``serve`` never blocks writing it."""

import collections
import logging
import os
import sys
import threading
from typing import IO, Any, Callable, Deque, List, NamedTuple, Optional, Union

__all__ = ["StderrSink", "Sink", "StderrDrain"]

#: Where ``serve``'s stderr goes: None forwards it to this process's ``sys.stderr``; a path appends it to that
#: file; an object with ``write(str)`` (an open text file, ``io.StringIO``) receives it.
StderrSink = Union[None, str, "os.PathLike[str]", IO[str]]

_TAIL_LINES = 40

_log = logging.getLogger("archpool")


class StderrDrain:
    """Reads ``serve``'s stderr line by line until EOF.

    Until :meth:`release`, lines are held back: when ``serve`` stops before its ``hello``, what it printed is the
    exception's message (:meth:`held_text`) rather than printed twice. After that every line goes to the sink as
    it comes. The last lines are always kept (:meth:`tail`), for the message of a ``serve`` that died.
    """

    def __init__(self, stream: IO[bytes], sink: "Sink", name: str) -> None:
        self._stream = stream
        self._write, self._close = sink.write, sink.close
        self._lock = threading.Lock()
        self._held: Optional[List[str]] = []
        self._tail: Deque[str] = collections.deque(maxlen=_TAIL_LINES)
        self._thread = threading.Thread(target=self._drain, name=name, daemon=True)
        self._thread.start()

    def release(self) -> None:
        """Writes what was held and lets every later line through."""
        with self._lock:
            held, self._held = self._held, None
            for line in held or ():
                self._deliver(line)

    def held_text(self) -> str:
        with self._lock:
            return "".join(self._held or ())

    def tail(self) -> str:
        with self._lock:
            return "".join(self._tail)

    def join(self, timeout: float) -> bool:
        """Waits for EOF (``serve`` and everything that inherited its stderr exited); False if it did not come."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _deliver(self, line: str) -> None:
        """Writes one line; a sink that fails is reported once and dropped, and draining goes on (a ``serve``
        whose stderr is not read would block)."""
        try:
            self._write(line)
        except Exception:  # noqa: BLE001 - any failure of a user's sink; it is logged, with its traceback
            _log.exception("writing archpool serve's stderr failed; its further lines are dropped (the last %d"
                           " are still kept for error messages)", _TAIL_LINES)
            self._write = _drop

    def _drain(self) -> None:
        try:
            for raw in iter(self._stream.readline, b""):
                line = raw.decode("utf-8", errors="replace")
                if not line.endswith("\n"):
                    line += "\n"
                with self._lock:
                    self._tail.append(line)
                    if self._held is not None:
                        self._held.append(line)
                    else:
                        self._deliver(line)
        finally:
            self._stream.close()
            self._close()


class Sink(NamedTuple):
    """Where the drained lines go: ``write`` takes one line, ``close`` is called at EOF."""

    write: Callable[[str], Any]
    close: Callable[[], None]

    @classmethod
    def open(cls, sink: StderrSink) -> "Sink":
        """Opens the sink before ``serve`` starts, so that a path that cannot be written stops nothing running.

        :raises TypeError: for a sink that is none of the three kinds; OSError for a file that cannot be opened.
        """
        if sink is None:
            def forward(line: str) -> None:
                sys.stderr.write(line)
                sys.stderr.flush()
            return cls(forward, _nothing)
        if isinstance(sink, (str, os.PathLike)):
            file = open(os.fspath(sink), "a", encoding="utf-8", buffering=1)
            return cls(file.write, file.close)
        if callable(getattr(sink, "write", None)):
            def write(line: str) -> None:
                sink.write(line)  # type: ignore[union-attr]
                flush = getattr(sink, "flush", None)
                if flush is not None:
                    flush()
            return cls(write, _nothing)
        raise TypeError(f"stderr must be None (forward to sys.stderr), a file path or an object with write(str), not"
                        f" {type(sink).__name__}")


def _nothing() -> None:
    pass


def _drop(line: str) -> None:
    pass
