"""The future of one submitted job: a real :class:`concurrent.futures.Future` that knows its job."""

import threading
from concurrent.futures import Future, InvalidStateError
from typing import Callable, Optional

__all__ = ["JobFuture"]


class JobFuture(Future):
    """What ``submit_cmake``/``submit_command`` return. Works with ``concurrent.futures.wait``, ``as_completed``
    and ``add_done_callback``; ``result()`` is a :class:`JobResult`, or raises :class:`BuildError` for a job that did
    not succeed, :class:`JobRejectedError` for a submit ``serve`` refused, :class:`ServeDiedError` when ``serve``
    went away first.

    ``cancel()`` of a job without a result sends ``cancel`` (a queued job ends at once, a running one is killed,
    its whole process tree) and returns True; ``serve``'s late answer about it is dropped.
    Done-callbacks run on the pool's reader thread: keep them short, and never wait there for another job.
    """

    def __init__(self, client_job_id: str, on_cancel: Callable[[str], None]) -> None:
        super().__init__()
        self.client_job_id = client_job_id
        self._on_cancel = on_cancel
        self._accepted = threading.Event()
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

    def cancel(self) -> bool:
        if not super().cancel():
            return False
        self._on_cancel(self.client_job_id)
        return True

    # The pool's reader thread, and nobody else, calls these.

    def _set_accepted(self, job_id: str, shared: bool) -> None:
        self._job_id = job_id
        self._shared = shared
        self._accepted.set()

    def _settle(self, outcome: Callable[[], None]) -> None:
        """Resolves the future unless it was cancelled meanwhile (then ``serve``'s answer is dropped); also wakes
        :meth:`wait_accepted`."""
        if not self.cancelled():
            try:
                outcome()
            except InvalidStateError:
                if not self.cancelled():
                    raise
                # cancelled between the check and here: the cancel won, as it would have a moment earlier
        self._accepted.set()

    def _reject(self, error: BaseException) -> None:
        self._rejection = error
        self._settle(lambda: self.set_exception(error))
