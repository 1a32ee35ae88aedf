"""The exceptions of the client: one class per thing that can go wrong, all under :class:`ArchpoolError`."""

from typing import TYPE_CHECKING, Optional, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from ._results import JobResult

__all__ = [
    "ArchpoolError",
    "ArchpoolNotFoundError",
    "ServeError",
    "UsageError",
    "ArchResolutionError",
    "ServeDiedError",
    "ProtocolError",
    "JobRejectedError",
    "BuildError",
    "PoolClosedError",
]


class ArchpoolError(Exception):
    """Base of every exception this package raises on its own account."""


class ArchpoolNotFoundError(ArchpoolError, FileNotFoundError):
    """No ``archpool`` launcher was found in any of the places looked (``.searched`` lists them)."""

    def __init__(self, message: str, searched: Tuple[str, ...]) -> None:
        super().__init__(message)
        self.searched = searched


class ServeError(ArchpoolError):
    """``archpool serve`` stopped: ``exit_code`` is its exit status (None while it still runs, e.g. for a socket
    that closed), ``stderr`` what it printed that explains it (its whole message before ``hello``, the last
    lines after)."""

    def __init__(self, message: str, exit_code: Optional[int] = None, stderr: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class UsageError(ServeError):
    """archpool refused its flags or an output path before it started (exit status 2)."""


class ArchResolutionError(ServeError):
    """archpool could not resolve the GPU architecture, or the compiler refused it (exit status 3)."""


class ServeDiedError(ServeError):
    """The connection to ``archpool serve`` ended while jobs or requests were still waiting for an answer."""


class ProtocolError(ArchpoolError):
    """``archpool serve`` sent something this client cannot read (a service version it does not speak, a line
    that is not a message)."""


class JobRejectedError(ArchpoolError):
    """``archpool serve`` did not take a submit (an ``error`` reply): ``code`` is the protocol's error code
    (``invalid-job``, ``shutting-down``, …) and the message is archpool's own."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BuildError(ArchpoolError):
    """A job ended with an outcome other than ``succeeded`` or ``skipped`` (``failed``, ``timed_out``, ``crashed``,
    ``cancelled``); ``result`` is its :class:`JobResult`."""

    def __init__(self, result: "JobResult") -> None:
        super().__init__(_describe(result))
        self.result = result


class PoolClosedError(ArchpoolError, RuntimeError):
    """A submit or request on a pool that was shut down, or whose ``archpool serve`` has gone."""


def _describe(result: "JobResult") -> str:
    head = f"job {result.id} {result.outcome}"
    if result.message:
        head += f": {result.message}"
    if result.log_path:
        head += f" (log: {result.log_path})"
    if result.log_tail:
        head += "\n" + "\n".join("  | " + line for line in result.log_tail.splitlines())
    for failure in result.attempt_failures:
        head += f"\n  attempt failed: {failure}"
    return head
