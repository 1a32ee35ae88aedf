"""One connection to ``archpool serve``: the tables of what waits for an answer, the writer, the reader thread
that only reads ``serve``'s lines, and the dispatcher thread that resolves every future from them, in their order
(docs/service.md, "Messages"). Done-callbacks run on the dispatcher: however long one takes, the reader goes on
reading, so ``serve`` never sees a client that leaves its replies unread (it disconnects one after
``--client-stall-limit``)."""

import atexit
import itertools
import logging
import os
import queue
import threading
import weakref
from concurrent.futures import Future
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Union

from . import _protocol as protocol
from ._errors import BuildError, JobRejectedError, PoolClosedError, ProtocolError, ServeError
from ._future import DispatcherThread, JobFuture
from ._results import Bye, JobResult, ServeInfo, Status
from ._transport import Transport

__all__ = ["Connection"]

_log = logging.getLogger("archpool")

#: Every connection of this process that has not ended, for :func:`_after_fork_in_child`, the one place that must
#: find them all: a forked child has to drop its copies of their file descriptors before any of its own code runs
#: (else, the parent killed, the child still holds ``serve``'s stdin open and ``serve`` never ends), and nothing
#: else in the child knows them. Weak: it keeps no connection (and so no pool) alive.
_LIVE: "weakref.WeakSet[Connection]" = weakref.WeakSet()


class _Ended(NamedTuple):
    """The reader's last item for the dispatcher: no more messages come; ``failure`` says why reading failed (None:
    ``serve`` closed the stream)."""

    failure: Optional[BaseException]


#: What the reader hands the dispatcher: each message of ``serve``'s, decoded, then one :class:`_Ended`.
_Item = Union[Dict[str, Any], _Ended]


class Connection:
    """Submits, cancels and requests from any thread; answers read on one thread and resolved on another, in
    ``serve``'s order."""

    def __init__(self, transport: Transport) -> None:
        """Reads ``hello`` (blocking until ``serve`` resolved its target and started its pool).

        :raises ServeError: ``serve`` stopped first (:class:`UsageError`, :class:`ArchResolutionError`…).
        :raises ProtocolError: its first line is not a ``hello`` of service version 1.
        """
        self._transport = transport
        self._pid = os.getpid()  # the process this connection belongs to: a forked child may not use it
        self._lock = threading.Lock()  # the tables and the state below
        self._write_lock = threading.Lock()  # one whole line at a time
        self._jobs: Dict[str, JobFuture] = {}
        self._requests: Dict[str, "Future[Status]"] = {}
        self._ids = itertools.count(1)
        self._closing = False  # shutdown began: no more submits
        self._disconnect_when_idle = False
        self._ended: Optional[BaseException] = None  # why no more answers come, once the dispatcher ended
        self.bye: Optional[Bye] = None
        self.exit_code: Optional[int] = None
        # unbounded: messages are small, and serve bounds what it sends a client that does not read
        self._inbox: "queue.SimpleQueue[_Item]" = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._read, name="archpool-reader", daemon=True)
        self._dispatcher = DispatcherThread(target=self._resolve, name="archpool-dispatcher", daemon=True)
        _LIVE.add(self)  # from here on a fork drops the child's copies of the transport's descriptors
        try:
            self.info = self._hello()
        except BaseException:
            _LIVE.discard(self)
            raise
        transport.release_stderr()
        if transport.owns_serve:
            atexit.register(self._abandon)
        self._reader.name = f"archpool-reader-{self.info.pid}"
        self._dispatcher.name = f"archpool-dispatcher-{self.info.pid}"
        self._dispatcher.start()
        self._reader.start()

    # --- what clients call, from any thread

    def submit(self, job: Mapping[str, Any], cwd: str) -> JobFuture:
        self._check_process("submit a job")
        with self._lock:
            self._check_open("submit a job")
            client_job_id = f"c{next(self._ids)}"
        line = protocol.encode(protocol.submit(client_job_id, cwd, job))
        future = JobFuture(client_job_id, self._cancel)
        with self._lock:
            self._check_open("submit a job")
            self._jobs[client_job_id] = future
        self._send(line)
        return future

    def status(self, timeout: Optional[float]) -> Status:
        self._check_process("ask for the status")
        with self._lock:
            if self._ended is not None:
                raise PoolClosedError(f"cannot ask {self._transport.describe()} for its status: {self._ended}")
            request_id = f"s{next(self._ids)}"
            answer: "Future[Status]" = Future()
            self._requests[request_id] = answer
        self._send(protocol.encode(protocol.status(request_id)))
        return answer.result(timeout)

    def shutdown(self, cancel_futures: bool) -> None:
        """Stdio: ``shutdown`` (``serve`` ends every job, says ``bye`` and exits). Socket: this client leaves once
        its jobs have their results (at once with ``cancel_futures``, which cancels them). In a forked child:
        nothing (the connection is the parent's)."""
        if self._forked():
            return
        with self._lock:
            first = not self._closing
            self._closing = True
            pending = [f for f in self._jobs.values() if not f.done()]
        if self._transport.owns_serve and first:
            self._send(protocol.encode(protocol.shutdown(cancel_futures)))
            return
        if cancel_futures:
            # a client of a shared serve, or a second shutdown that asks for what the first did not: queued jobs
            # are cancelled, running ones killed
            for future in pending:
                future.kill()
        if not self._transport.owns_serve:
            with self._lock:
                self._disconnect_when_idle = True
            self._disconnect_if_idle()

    def release(self) -> None:
        """The pool was garbage-collected without a shutdown: ``shutdown(cancel_futures=False)``, not waited for
        (its jobs finish, futures that were kept get their results, then ``serve`` exits, or this client leaves).

        It runs on a thread of its own: a finalizer runs on whatever thread the collector interrupts, at any
        allocation, possibly one that holds this connection's locks, where calling :meth:`shutdown` would
        deadlock."""
        if self._forked() or self._closing or self._ended is not None:
            return
        threading.Thread(target=self.shutdown, args=(False,), name=f"archpool-release-{self.info.pid}",
                         daemon=True).start()

    def wait_closed(self) -> None:
        """Until both threads saw the end (``bye`` and ``serve``'s exit, or the disconnect) and the dispatcher
        failed what still waited; in a forked child, at once."""
        if self._forked():
            return
        if threading.current_thread() is self._dispatcher:
            raise RuntimeError("shutdown(wait=True) cannot wait from a done-callback (it runs on the thread that"
                               " resolves the pool's futures); use shutdown(wait=False) there")
        self._dispatcher.join()
        self._reader.join()

    def pending(self) -> int:
        if self._forked():
            return 0  # the parent's jobs; and a lock another thread held at the fork stays held in the child
        with self._lock:
            return sum(1 for f in self._jobs.values() if not f.done())

    # --- internals

    def _forked(self) -> bool:
        """Whether this process is a fork of the one the connection belongs to."""
        return os.getpid() != self._pid

    def _check_process(self, what: str) -> None:
        """Refuses every use in a forked child, before any lock is taken (one that another thread of the parent held
        at the fork stays held in the child)."""
        if self._forked():
            if self._transport.owns_serve:
                fix = "create a new archpool.Pool in the child (or fork before creating the pool)"
            else:
                fix = f"call archpool.connect({getattr(self._transport, 'path', 'PATH')!r}) again in the child"
            raise PoolClosedError(f"cannot {what}: this Pool belongs to process {self._pid}; a forked child"
                                  f" (pid {os.getpid()}) cannot use it, since {self._transport.describe()} answers"
                                  f" the parent only: {fix}")

    def _after_fork(self) -> None:
        """In a forked child (before its own code runs): closes the child's copies of the descriptors to ``serve``
        without sending anything, and takes back the exit hook, so that nothing the child does or leaves open
        touches the parent's ``serve``."""
        if self._transport.owns_serve:
            atexit.unregister(self._abandon)
        self._transport.drop_after_fork()

    def _check_open(self, what: str) -> None:
        if self._ended is not None:
            raise PoolClosedError(f"cannot {what}: {self._ended}")
        if self._closing:
            raise PoolClosedError(f"cannot {what} after shutdown() of {self._transport.describe()}")

    def _send(self, line: bytes) -> None:
        """A write that fails means ``serve`` is gone: the reader sees its EOF and the dispatcher fails what is
        pending, with ``serve``'s own exit status and stderr, so the write's error is not the one the caller gets."""
        with self._write_lock:
            try:
                self._transport.write(line)
            except OSError as e:
                _log.debug("writing to %s failed (%s); its end is reported by the reader", self._transport.describe(),
                           e)

    def _cancel(self, client_job_id: str) -> None:
        if self._forked():
            return  # a copy of a parent's future, cancelled in the child: nothing goes to the parent's serve
        with self._lock:
            if self._ended is not None:
                return
        self._send(protocol.encode(protocol.cancel(client_job_id)))
        self._disconnect_if_idle()

    def _hello(self) -> ServeInfo:
        try:
            line = self._transport.read_hello()
            if not line:
                raise self._transport.start_failure()
            message = protocol.decode(line)
            protocol.check_hello(message)
            return ServeInfo.from_message(message)
        except (ProtocolError, KeyError, TypeError) as e:
            self._transport.close()
            self._transport.finish()
            if isinstance(e, ProtocolError):
                raise
            raise ProtocolError(f"archpool serve's hello lacks a field or has one of the wrong type: {e!r}") from e
        except BaseException:
            self._transport.close()
            raise

    def _read(self) -> None:
        """The reader thread: hands each line of ``serve``'s, decoded, to the dispatcher, then :class:`_Ended`. It
        runs no code of the caller's, so that no done-callback ever leaves ``serve``'s replies unread.

        After a failure of the dispatcher's, whose :meth:`_end` closes the transport, it reads to the end of what
        is left (or fails reading a closed file); what it hands over then is never looked at."""
        failure: Optional[BaseException] = None
        try:
            while True:
                line = self._transport.read_line()
                if not line:
                    break
                self._inbox.put(protocol.decode(line))
        except (ProtocolError, KeyError, TypeError, ValueError, OSError) as e:
            failure = self._failure(e)
        finally:
            self._inbox.put(_Ended(failure))

    def _resolve(self) -> None:
        """The dispatcher thread: resolves futures from ``serve``'s messages, in their order, running done-callbacks;
        after the last message (or a message it cannot read), :meth:`_end`."""
        failure: Optional[BaseException] = None
        try:
            while True:
                item = self._inbox.get()
                if isinstance(item, _Ended):
                    failure = item.failure
                    break
                self._dispatch(item)
        except (ProtocolError, KeyError, TypeError, ValueError, OSError) as e:
            failure = self._failure(e)
        finally:
            self._end(failure)

    def _failure(self, error: Exception) -> BaseException:
        """What the pending futures fail with when reading or dispatching ``serve``'s messages raised ``error``."""
        if isinstance(error, ProtocolError):
            return error
        if isinstance(error, OSError):
            return ServeError(f"reading from {self._transport.describe()} failed: {error}")
        return ProtocolError(f"archpool serve sent a message this client cannot read: {error!r}")

    def _dispatch(self, message: Dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "accepted":
            future = self._job(message["clientJobId"])
            if future is not None:
                future._set_accepted(message["jobId"], bool(message.get("shared", False)))
        elif kind == "started":
            future = self._job(message["clientJobId"])
            if future is not None:
                future._set_started(str(message["worker"]), int(message.get("attempt", 1)))
        elif kind == "result":
            result = JobResult.from_message(message)
            future = self._take_job(result.client_job_id)
            if future is not None:
                if result.succeeded or result.skipped:  # skipped: not built for want of an arch, not a failure
                    future._settle(lambda: future.set_result(result))
                else:
                    future._settle(lambda: future.set_exception(BuildError(result)))
                self._disconnect_if_idle()
        elif kind == "status":
            answer = self._take_request(message.get("requestId"))
            if answer is not None:
                answer.set_result(Status.from_message(message))
        elif kind == "error":
            self._error(message)
        elif kind == "bye":
            self.bye = Bye.from_message(message)
            if self.bye.not_written:
                _log.warning("archpool serve wrote no report: %s", self.bye.not_written)
        # any other type is one a later serve added: ignored, as the protocol says

    def _error(self, message: Dict[str, Any]) -> None:
        code = str(message.get("code", ""))
        text = str(message.get("message", ""))
        client_job_id = message.get("clientJobId")
        request_id = message.get("requestId")
        if client_job_id is not None and code == "unknown-job":
            return  # a cancel that crossed the job's result: the result was already taken
        if client_job_id is not None:
            future = self._take_job(client_job_id)
            if future is not None:
                future._reject(JobRejectedError(code, text))
                self._disconnect_if_idle()
                return
        if request_id is not None:
            answer = self._take_request(request_id)
            if answer is not None:
                answer.set_exception(JobRejectedError(code, text))
                return
        _log.error("archpool serve refused a message of this client (%s): %s", code, text)

    def _job(self, client_job_id: str) -> Optional[JobFuture]:
        with self._lock:
            future = self._jobs.get(client_job_id)
        if future is None:
            _log.warning("archpool serve answered about job %r, which this client did not submit", client_job_id)
        return future

    def _take_job(self, client_job_id: str) -> Optional[JobFuture]:
        with self._lock:
            future = self._jobs.pop(client_job_id, None)
        if future is None:
            _log.warning("archpool serve answered about job %r, which this client did not submit or that has its"
                         " result", client_job_id)
        return future

    def _take_request(self, request_id: Optional[str]) -> "Optional[Future[Status]]":
        with self._lock:
            return self._requests.pop(request_id, None) if request_id is not None else None

    def _disconnect_if_idle(self) -> None:
        """A client of a shared ``serve`` that shut down leaves once nothing of its own is pending."""
        with self._lock:
            leave = self._disconnect_when_idle and not any(not f.done() for f in self._jobs.values())
        if leave:
            self._transport.close()

    def _end(self, failure: Optional[BaseException]) -> None:
        """The dispatcher's last act, after the last message: every future and request that still waits fails,
        saying why."""
        if failure is not None:
            self._transport.close()
        elif not self._transport.owns_serve and self._disconnect_when_idle:
            failure = PoolClosedError(f"this client left {self._transport.describe()} (shutdown)")
        elif self.bye is None:
            failure = self._transport.ended()
        else:
            failure = PoolClosedError(f"{self._transport.describe()} was shut down")
        self.exit_code = self._transport.finish()
        _LIVE.discard(self)
        if self._transport.owns_serve:
            atexit.unregister(self._abandon)
        with self._lock:
            self._ended = failure
            jobs: List[JobFuture] = list(self._jobs.values())
            requests = list(self._requests.values())
            self._jobs.clear()
            self._requests.clear()
        for future in jobs:
            future._settle(lambda f=future: f.set_exception(failure))  # type: ignore[misc]
        for answer in requests:
            answer.set_exception(failure)

    def _abandon(self) -> None:
        """At interpreter exit without shutdown: close ``serve``'s stdin, so that it cancels every job and exits,
        and wait for that (killing it if it does not). Not in a forked child: that ``serve`` is the parent's."""
        if self._forked():
            return
        self._transport.close()
        self._dispatcher.join(15.0)  # it ends after the reader, with serve's exit (Transport.finish)


def _after_fork_in_child() -> None:
    """``os.fork()`` hook, in the child: every connection of the parent drops its descriptors there."""
    for connection in list(_LIVE):
        try:
            connection._after_fork()
        except Exception:  # noqa: BLE001 - the child's own code must run; the failure is logged
            _log.exception("dropping a forked child's copy of a connection to archpool serve failed")
    _LIVE.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
