"""The public face: :class:`Pool` (starts ``archpool serve --stdio`` and owns it) and :func:`connect` (joins a
``serve --socket`` that others share)."""

import os
import weakref
from types import TracebackType
from typing import Any, Mapping, Optional, Sequence, Tuple, Type, Union

from ._connection import Connection
from ._future import JobFuture
from ._jobs import Duration, PathArg, cmake_job, command_job
from ._locate import find_archpool
from ._options import serve_flags
from ._results import Bye, ServeInfo, Status, Target
from ._stderr import StderrSink
from ._transport import SocketTransport, StdioTransport

__all__ = ["Pool", "connect"]


class Pool:
    """A pool of archpool workers that builds jobs as they are submitted, for the target resolved once (or the
    targets given: one per platform).

    ``Pool(jobs=None, platform="auto", arch=None, archpool=None, **options)`` starts ``archpool serve --stdio`` and
    returns once it answered (its target resolved, its workers up). ``jobs`` is ``-j``, ``platform`` and ``arch``
    are ``--platform`` and ``--arch`` (``"90"``, ``"80;90"`` or ``["80", "90"]``), ``archpool`` the launcher
    (default: :func:`find_archpool`). Every other keyword is one flag of ``serve`` (docs/service.md), ``_`` for
    ``-``: ``verify="strict"``, ``timeout="10m"`` (or seconds, or a timedelta), ``retries=1``, ``mode="process"``,
    ``log_dir=...``, ``fallback_arch=...``, ``quiet=True``, ``srun_arg=[...]``, ``cache=...`` (the build cache's
    folder), ``no_cache=True``, ``remote_cache="https://..."``, ``order="fifo"`` (the queue's order; default
    ``"longest-first"``), ``no_configure_seed=True``, ``gpu_targets=["cuda:80,90", "hip:gfx942"]`` (one ``--target`` each,
    instead of ``platform`` and ``arch``: several targets, and then every submit names its platform in
    ``platforms=``)… ``stderr`` is where ``serve``'s
    progress and diagnostics go: None (forwarded to ``sys.stderr``), a file path, or an object with ``write``.

    :raises TypeError: an option that is no flag of ``serve``, or a value of the wrong type.
    :raises UsageError: archpool refused a flag's value or an output path (its exit status 2).
    :raises ArchResolutionError: no architecture could be resolved, or the compiler refused it (exit status 3).
    :raises ArchpoolNotFoundError: no archpool launcher was found.

    A pool that is garbage-collected without :meth:`shutdown` shuts down as ``shutdown(wait=False)`` does (as a
    ``ProcessPoolExecutor`` does): its jobs finish, futures that were kept get their results, then ``serve``
    exits. After ``os.fork()`` the pool is the parent's: in the child, every use raises :class:`PoolClosedError`
    and :meth:`shutdown` does nothing.
    """

    def __init__(self, jobs: Optional[int] = None, platform: Optional[str] = "auto",
                 arch: Union[None, str, int, Sequence[Union[str, int]]] = None, archpool: Optional[str] = None, *,
                 stderr: StderrSink = None, **options: Any) -> None:
        flags = serve_flags(jobs, platform, arch, options)
        command = [find_archpool(archpool), "serve", "--stdio", *flags]
        self._connection = Connection(StdioTransport(command, stderr))
        self._release_when_dropped()

    @classmethod
    def _joined(cls, connection: Connection) -> "Pool":
        pool = cls.__new__(cls)
        pool._connection = connection
        pool._release_when_dropped()
        return pool

    def _release_when_dropped(self) -> None:
        """Once nothing refers to this pool, :meth:`Connection.release` (a shutdown without waiting). Nothing but
        this pool refers to it: the reader and dispatcher threads, the futures and the exit hook hold the
        connection, never the pool. Not at interpreter exit (``atexit`` off): there the connection's own hook ends
        ``serve``, cancelling its jobs, as documented."""
        self._finalizer = weakref.finalize(self, Connection.release, self._connection)
        self._finalizer.atexit = False

    # --- what serve said

    @property
    def target(self) -> Target:
        """The platform and architectures jobs are built for, and where they came from; with several targets, the
        first (:attr:`gpu_targets`)."""
        return self._connection.info.target

    @property
    def gpu_targets(self) -> Tuple[Target, ...]:
        """Every target of ``serve``, one per platform, :attr:`target` first: ``(target,)`` unless the pool was
        started with several (``gpu_targets=["cuda:80,90", "hip:gfx942"]``). With several, each submit names one
        platform (``platforms=["cuda"]``), else ``serve`` refuses it (``invalid-job``)."""
        return self._connection.info.gpu_targets

    @property
    def info(self) -> ServeInfo:
        """``serve``'s ``hello``: its version, pid, pool (mode, launcher, workers), log folder and report."""
        return self._connection.info

    @property
    def log_dir(self) -> Optional[str]:
        """The folder with every job's log (``JOB_ID.log``)."""
        return self._connection.info.log_dir

    @property
    def bye(self) -> Optional[Bye]:
        """After shutdown of a pool this process owns: ``serve``'s last word (report path, outcomes)."""
        return self._connection.bye

    @property
    def exit_code(self) -> Optional[int]:
        """``serve``'s exit status once it exited (None for a :func:`connect`-ed pool, or while it runs)."""
        return self._connection.exit_code

    def status(self, timeout: Optional[float] = None) -> Status:
        """Counts of the whole ``serve`` (every client's jobs): queued, running, accepted, outcomes…"""
        return self._connection.status(timeout)

    # --- jobs

    def submit_cmake(self, source_dir: PathArg, build_dir: Optional[PathArg] = None,
                     defines: Optional[Mapping[str, Any]] = None, id: Optional[str] = None,
                     generator: Optional[str] = None, build_type: Optional[str] = None,
                     configure_args: Optional[Sequence[str]] = None, build_args: Optional[Sequence[str]] = None,
                     targets: Optional[Sequence[str]] = None, env: Optional[Mapping[str, str]] = None,
                     timeout: Optional[Duration] = None, artifacts: Optional[Sequence[PathArg]] = None, *,
                     platforms: Optional[Sequence[str]] = None, archs: Optional[Sequence[str]] = None) -> JobFuture:
        """Configures and builds a CMake project for the pool's target (archpool passes
        ``CMAKE_<LANG>_ARCHITECTURES``; ``defines`` may not). ``id`` defaults to the source folder's name, and
        ``build_dir`` to ``build/<id>`` (``build/<platform>/<id>`` with several targets, which append
        ``/<platform>`` to an explicit ``build_dir``); relative paths start at this process's working directory.
        A build folder holds one build at a time: a job whose build folder is that of another job still queued or
        running (other defines, say) fails with :class:`JobRejectedError` ``build-dir-in-use``; give each variant
        its own ``build_dir``. ``platforms`` and ``archs``: as for :meth:`submit_command`.
        Returns at once; the future's result is the :class:`JobResult`."""
        job = cmake_job(source_dir, build_dir, defines, id, generator, build_type, configure_args, build_args,
                        targets, env, timeout, artifacts, platforms=platforms, archs=archs)
        return self._connection.submit(job, os.getcwd())

    def submit_command(self, argv: Sequence[PathArg], cwd: Optional[PathArg] = None,
                       env: Optional[Mapping[str, str]] = None, artifacts: Optional[Sequence[PathArg]] = None,
                       id: Optional[str] = None, timeout: Optional[Duration] = None,
                       inputs: Optional[Sequence[PathArg]] = None, *, platforms: Optional[Sequence[str]] = None,
                       archs: Optional[Sequence[str]] = None) -> JobFuture:
        """Runs ``argv`` (no shell) in ``cwd``, with ``{offload-arch-flags}`` and ``{archs}`` in it replaced by the
        pool's target. ``id`` defaults to the program's name. A command job's default artifacts are the files
        written under ``cwd`` while it ran: give parallel jobs their own ``cwd``, or name their ``artifacts``.
        ``inputs`` are globs of the files the job reads (relative to ``cwd``, or absolute): with them the build
        cache can restore the job's artifacts instead of running it again; without them (None) it is never cached.

        ``platforms`` (``["cuda"]``) limits the job to those platforms; a pool of several :attr:`gpu_targets` needs it,
        naming exactly one. ``archs`` are the architectures the job supports (``["90a"]``, ``[">=80", "gfx942"]``:
        CUDA exact or ranges ``>=N``, ``>N``, ``<=N``, ``<N``; HIP target ids): it is built for the target's
        architectures among them (its result's ``target``), and when there are none it is not built: its result is
        ``skipped``, which ``result()`` returns (it is not a failure). ``serve`` checks what both mean
        (:class:`JobRejectedError` ``invalid-job``).
        Returns at once; the future's result is the :class:`JobResult`."""
        job = command_job(argv, cwd, env, artifacts, id, timeout, inputs, platforms=platforms, archs=archs)
        return self._connection.submit(job, os.getcwd())

    # --- the end

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more submits. A pool this process started: ``serve`` runs every accepted job to its result (with
        ``cancel_futures``, it cancels queued jobs and kills running ones), writes its report and exits. A pool
        from :func:`connect`: only this client leaves, once its own jobs have their results (at once with
        ``cancel_futures``: each pending future is killed, :meth:`JobFuture.kill`, so queued jobs are cancelled and
        running ones killed); the ``serve`` goes on for the others.
        With ``wait``, returns when that is done. Calling it again is harmless; so is calling it in a child forked
        from the process that made the pool (it does nothing there: the pool is the parent's)."""
        self._connection.shutdown(cancel_futures)
        if wait:
            self._connection.wait_closed()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        """Waits for every job; when the block raised (a Ctrl-C, a failed assertion), cancels them instead."""
        self.shutdown(wait=True, cancel_futures=error is not None)

    def __repr__(self) -> str:
        info = self._connection.info
        targets = ", ".join(f"{t.platform} {';'.join(t.archs)}" for t in info.gpu_targets)
        return (f"<archpool.Pool {targets}, {info.workers} workers,"
                f" pid {info.pid}, {self._connection.pending()} pending>")


def connect(socket_path: PathArg, timeout: Optional[float] = None) -> Pool:
    """Joins ``archpool serve --socket PATH`` (started by someone else, shared by several processes): the same
    :class:`Pool`, whose target is the one that ``serve`` resolved; its ``shutdown()`` only disconnects.

    ``timeout``: how many seconds to wait for a ``serve`` that is still starting (no socket yet, or one that does
    not answer yet), e.g. ranks that connect while another starts it: the whole connect, retries and ``hello``,
    ends within about that time. None or 0 tries once, and waits at most ``HELLO_TIMEOUT_S`` (30 s) for the
    ``hello`` of what accepted the connection.

    Before each try the path is checked as ``serve`` checks it (OpenSSH's ``StrictModes`` rule): the socket, if
    there, is a socket of this user's; its folder is this user's with mode 0700 or narrower; every folder above
    is this user's or root's and writable by no one else, unless root's with the sticky bit (``/tmp``). A path
    another user could change is refused at once, since that user could listen in ``serve``'s place.

    :raises ServeError: nothing answers at ``socket_path`` (within ``timeout``); what accepted the connection
        sent no ``hello`` in time; the path fails the check above.
    """
    return Pool._joined(Connection(SocketTransport.connect(os.fspath(socket_path), timeout or 0.0)))
