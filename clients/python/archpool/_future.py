"""The future of one submitted job: a real :class:`concurrent.futures.Future` that knows its job."""

import logging
import threading
from concurrent.futures import Future, InvalidStateError
from typing import Any, Callable, Optional

__all__ = ["JobFuture", "DispatcherThread"]

_log = logging.getLogger("archpool")


class DispatcherThread(threading.Thread):
    """The thread of a connection that resolves every future, in the order of ``serve``'s answers (another thread
    reads them): done-callbacks that run on it must never end it (:meth:`JobFuture.add_done_callback`)."""


class JobFuture(Future):
    """What ``submit_cmake``/``submit_command`` return. Works with ``concurrent.futures.wait``, ``as_completed``
    and ``add_done_callback``; ``result()`` is a :class:`JobResult` — of a job that succeeded, or of one that was
    ``skipped`` (it supports none of the target's architectures: not built, not a failure; ``exception()`` is None)
    —, or raises :class:`BuildError` for a job that failed (``failed``, ``timed_out``, ``crashed``, ``cancelled``),
    :class:`JobRejectedError` for a submit ``serve`` refused, :class:`ServeDiedError` when ``serve`` went away first.

    The future is pending while the job is queued and running (``running()`` True) once ``serve`` handed it to a
    worker (its ``started`` message; :attr:`worker` names the worker). A job the build cache restores never runs on
    a worker: its future goes from pending to done, and :attr:`worker` stays None.

    ``cancel()`` is that of :class:`concurrent.futures.Future`: while the job is queued it sends ``cancel`` (the job
    ends at once; ``serve``'s late answer about it is dropped), the future is cancelled and ``cancel()`` returns
    True; once the job runs, or has its result, it does nothing and returns False. :meth:`kill` also ends a job
    that runs.
    Done-callbacks run on the pool's dispatcher thread, one at a time: a slow one delays the other futures'
    callbacks and results (never wait there for another job), but never stops the client from reading ``serve``'s
    replies (another thread reads them). What a callback raises there, even a ``BaseException`` (``SystemExit``,
    ``KeyboardInterrupt``), is logged on the ``archpool`` logger and ignored, so that the other futures still get
    their results.
    """

    def __init__(self, client_job_id: str, on_cancel: Callable[[str], None]) -> None:
        super().__init__()
        self.client_job_id = client_job_id
        self._on_cancel = on_cancel
        self._accepted = threading.Event()
        self._started = threading.Event()  # set when a worker runs it, or when it ended without that
        self._state_lock = threading.Lock()  # cancel() against the dispatcher's start
        self._worker: Optional[str] = None
        self._attempt = 0
        self._job_id: Optional[str] = None
        self._shared: Optional[bool] = None
        self._rejection: Optional[BaseException] = None

    @property
    def job_id(self) -> Optional[str]:
        """``serve``'s name of the job (``ID.N``: its log is ``ID.N.log``) once accepted, else None."""
        return self._job_id

    @property
    def shared(self) -> Optional[bool]:
        """Once accepted: whether an identical job in flight was already building (this submit shares it)."""
        return self._shared

    @property
    def worker(self) -> Optional[str]:
        """The worker that runs (or last ran) the job, e.g. ``w2``, once ``serve`` started it; else None."""
        return self._worker

    @property
    def attempt(self) -> int:
        """The number of the job's attempt a worker runs (or last ran): 1, or more after a worker failed and the
        job was retried; 0 while it has not started."""
        return self._attempt

    def wait_started(self, timeout: Optional[float] = None) -> Optional[str]:
        """Blocks until a worker runs the job (``running()`` is True); returns its :attr:`worker`. Returns None for a
        job the build cache restored (its result's ``restored``) or one that was skipped (``skipped``): it is done
        without ever running on a worker.

        :raises TimeoutError: when ``timeout`` seconds passed first.
        :raises CancelledError: the future was cancelled before the job started.
        :raises: what :meth:`result` raises (:class:`BuildError`, :class:`JobRejectedError`,
            :class:`ServeDiedError`…) when the job ended without ever reaching a worker.
        """
        if not self._started.wait(timeout):
            raise TimeoutError(f"job {self.client_job_id} did not start within {timeout} s")
        if self._worker is None:
            result = self.result(timeout=0)  # it ended unstarted: raises why, unless restored or skipped
            if result.restored or result.skipped:
                return None
            raise RuntimeError(f"job {self.client_job_id} has a result but archpool serve never said it started")
        return self._worker

    def wait_accepted(self, timeout: Optional[float] = None) -> str:
        """Blocks until ``serve`` took the submit; returns its :attr:`job_id`.

        :raises JobRejectedError: when ``serve`` refused it; the failure of the future when it ended otherwise.
        :raises TimeoutError: when ``timeout`` seconds passed first.
        """
        if not self._accepted.wait(timeout):
            raise TimeoutError(f"job {self.client_job_id} was not accepted within {timeout} s")
        if self._job_id is None:
            if self._rejection is not None:
                raise self._rejection
            failure = self.exception(timeout=0)  # ended unaccepted: serve went away (or CancelledError)
            assert failure is not None
            raise failure
        return self._job_id

    def add_done_callback(self, fn: Callable[["Future[Any]"], object]) -> None:
        """As :meth:`concurrent.futures.Future.add_done_callback`: ``fn(future)`` runs once the future is done —
        at once on this thread if it is done already, else on the thread that makes it done: the pool's dispatcher
        thread (or the thread that cancels it).

        On the dispatcher thread, whatever ``fn`` raises, ``BaseException`` included (a ``SystemExit`` or
        ``KeyboardInterrupt`` raised inside it), is logged on the ``archpool`` logger with its traceback and
        ignored: that thread resolves every other future of the pool, and ``concurrent.futures`` would let a
        ``BaseException`` end it. On any other thread the standard library's rule holds: an ``Exception`` is logged
        (logger ``concurrent.futures``), a ``BaseException`` propagates to the caller.
        """
        def guarded(future: "Future[Any]") -> None:
            if not isinstance(threading.current_thread(), DispatcherThread):
                fn(future)  # concurrent.futures handles what it raises, as for any future
                return
            try:
                fn(future)
            except BaseException as e:  # noqa: BLE001 - the dispatcher must outlive any callback; logged, traceback
                _log.error("a done-callback (%r) of job %s raised %s; ignored: it ran on the thread that resolves"
                           " the futures of archpool serve's answers, which goes on with the other jobs'", fn,
                           self.client_job_id, type(e).__name__, exc_info=True)

        super().add_done_callback(guarded)

    def cancel(self) -> bool:
        """While the job is queued: asks ``serve`` to cancel it and cancels the future (True). Once it runs or has
        its result: does nothing (False), as :meth:`concurrent.futures.Future.cancel` does."""
        with self._state_lock:
            if not super().cancel():
                return False
            # wait() and as_completed() count a cancelled future only once notified; nothing else will notify it
            self.set_running_or_notify_cancel()
        self._started.set()
        self._on_cancel(self.client_job_id)
        return True

    def kill(self) -> bool:
        """Ends the job whether queued or running. Queued: as :meth:`cancel` (the future is cancelled). Running:
        ``serve`` kills it with its whole process tree, and the future then raises :class:`BuildError` with outcome
        ``cancelled`` (or has the job's result, if it ended first). Returns False when the future is done already.
        """
        if self.cancel():
            return True
        if self.done():
            return False
        self._on_cancel(self.client_job_id)
        return True

    # The pool's dispatcher thread, and nobody else, calls these.

    def _set_started(self, worker: str, attempt: int) -> None:
        """``serve`` handed an attempt of the job to ``worker``: the future runs (a retry's start only renames the
        worker). A future the user cancelled meanwhile stays cancelled: the ``cancel`` that :meth:`cancel` sent
        reaches ``serve`` after this start, and ``serve`` kills the job."""
        with self._state_lock:
            if self.cancelled() or self.done():
                return
            self._worker = worker
            self._attempt = attempt
            if not self.running():
                self.set_running_or_notify_cancel()
        self._started.set()

    def _set_accepted(self, job_id: str, shared: bool) -> None:
        self._job_id = job_id
        self._shared = shared
        self._accepted.set()

    def _settle(self, outcome: Callable[[], None]) -> None:
        """Resolves the future unless it was cancelled meanwhile (then ``serve``'s answer is dropped); also wakes
        :meth:`wait_accepted` and :meth:`wait_started`."""
        if not self.cancelled():
            try:
                outcome()
            except InvalidStateError:
                if not self.cancelled():
                    raise
                # cancelled between the check and here: the cancel won, as it would have a moment earlier
        self._accepted.set()
        self._started.set()

    def _reject(self, error: BaseException) -> None:
        self._rejection = error
        self._settle(lambda: self.set_exception(error))
