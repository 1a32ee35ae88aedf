"""What ``archpool serve`` answers, as frozen values: a job's result, the target, the pool, a status.

Each value keeps the message it was read from in ``raw`` (fields a later archpool adds are there too);
fields the message lacks are ``None``, empty or zero, as the report's conventions say (docs/report-schema.md).
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

__all__ = ["Artifact", "Phase", "Timings", "JobResult", "JobTarget", "Target", "ServeInfo", "Status", "Bye"]

SUCCEEDED = "succeeded"
#: The outcome of a job that supports none of the target's architectures (or whose ``platforms`` leave out every
#: target of ``serve``): not built, and not a failure.
SKIPPED = "skipped"
#: The ``cache`` of a job whose artifacts the build cache put back instead of a worker building them.
RESTORED = ("hit", "remote-hit")


@dataclass(frozen=True)
class Artifact:
    """A file a job built and the GPU code found in it (``sm_90``, ``compute_90``, ``gfx942``…)."""

    path: str
    archs: Tuple[str, ...]
    problem: Optional[str] = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Artifact":
        return cls(path=data["path"], archs=tuple(data.get("archs", ())), problem=data.get("problem"))


@dataclass(frozen=True)
class Phase:
    """One step of a job's last attempt: ``configure``, ``build``, ``command`` or ``inspect``."""

    name: str
    ms: int
    exit_code: Optional[int] = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Phase":
        return cls(name=data["name"], ms=data.get("ms", 0), exit_code=data.get("exitCode"))


@dataclass(frozen=True)
class Timings:
    """A job's times in milliseconds, counted from ``serve``'s start (``start_ms``) or durations (the rest)."""

    start_ms: int
    queue_wait_ms: int
    configure_ms: int
    build_ms: int
    command_ms: int
    inspect_ms: int
    total_ms: int

    @classmethod
    def from_json(cls, job: Mapping[str, Any]) -> "Timings":
        return cls(start_ms=job.get("startMs", 0), queue_wait_ms=job.get("queueWaitMs", 0),
                   configure_ms=job.get("configureMs", 0), build_ms=job.get("buildMs", 0),
                   command_ms=job.get("commandMs", 0), inspect_ms=job.get("inspectMs", 0),
                   total_ms=job.get("totalMs", 0))


@dataclass(frozen=True)
class JobTarget:
    """What one job was built for: ``platform`` (``cuda`` or ``hip``) and ``archs`` in CMake's spelling (``80``,
    ``90a``, ``gfx942``), the service's target narrowed to the architectures the job supports (its ``archs=``). For
    a ``skipped`` job, the service's target it was skipped for."""

    platform: str
    archs: Tuple[str, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "JobTarget":
        return cls(platform=data["platform"], archs=tuple(data.get("archs", ())))


@dataclass(frozen=True)
class JobResult:
    """The one result of a submitted job: a ``result`` message's ``job`` (a report entry) and its ``shared``.

    ``outcome`` is ``succeeded``, ``skipped`` (:attr:`skipped`: the job supports none of the target's
    architectures, or its ``platforms`` exclude every target of ``serve``; not built, and not a failure: ``message``
    says why), or a failure: ``failed``, ``timed_out``, ``crashed``, ``cancelled`` (``future.result()`` raises
    :class:`BuildError` for these, and for an outcome a later ``serve`` adds).

    ``worker`` is None, ``attempts`` 0, ``phases`` empty and ``configure_seeded`` None for a job the build cache
    restored (:attr:`restored`), and for a skipped one: no worker ran it."""

    id: str
    client_job_id: str
    kind: str
    outcome: str
    exit_code: Optional[int]
    signal: Optional[str]
    artifacts: Tuple[Artifact, ...]
    log_path: Optional[str]
    log_tail: Optional[str]
    message: Optional[str]
    timings: Timings
    phases: Tuple[Phase, ...]
    worker: Optional[str]
    attempts: int
    attempt_failures: Tuple[str, ...]
    shared: bool
    warnings: Tuple[str, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False, hash=False)
    #: What the build cache did for the job: ``hit`` (restored from the local cache), ``remote-hit`` (from the
    #: remote one), ``miss`` (no entry; built and not stored: it did not succeed, or storing failed),
    #: ``stored`` (built and stored under its key), ``uncacheable`` (no key: a command job without ``inputs``,
    #: inputs that could not be read…) or ``rejected`` (an entry was found and refused — damaged, or its GPU code
    #: does not match the target — so the job was built again); None when ``serve`` runs without a cache
    #: (``no_cache=True``) or is too old to have one.
    cache: Optional[str] = None
    #: The job's cache key (SHA-256, hex); None when it has none (``uncacheable``, or no cache).
    cache_key: Optional[str] = None
    #: Why the job was ``uncacheable`` or ``rejected``, or why a built job was not stored; None otherwise.
    cache_note: Optional[str] = None
    #: Why the lookup found nothing to restore, for a job that was ``miss``, ``stored`` or ``rejected``:
    #: ``no-entry`` (nothing under its key: a new job, or a changed source, toolchain or target),
    #: ``read-set-changed`` (a file its last build read outside its source folder changed, is gone, or a new header
    #: may be found first) or ``rejected`` (an entry was refused); None otherwise.
    cache_miss_reason: Optional[str] = None
    #: How many milliseconds the job took when it last succeeded on a worker for this target (its duration
    #: history, which ``order="longest-first"`` starts the longest jobs first by); None when it never ran before,
    #: or from a ``serve`` too old to keep one.
    expected_ms: Optional[int] = None
    #: Whether the job's fresh CMake build tree started from its toolchain's configure seed (CMake did not identify
    #: the compilers again); False for the job whose configure became the seed, a build tree that was configured
    #: already, or a seeded configure that failed and was run again without the seed (its ``warnings`` say so).
    #: None for command jobs, jobs the build cache restored, a pool with ``no_configure_seed=True``, or a ``serve``
    #: too old to seed.
    configure_seeded: Optional[bool] = None
    #: The platform and architectures the job was built for (the service's target narrowed to the job's ``archs``);
    #: for a skipped job, the target it was skipped for. None from a ``serve`` too old to say.
    target: Optional[JobTarget] = None

    @property
    def succeeded(self) -> bool:
        """Whether the job was built, and what it built holds its target (``outcome`` ``succeeded``)."""
        return self.outcome == SUCCEEDED

    @property
    def skipped(self) -> bool:
        """Whether the job was not built because it supports none of the target's architectures, or its
        ``platforms`` exclude every target of ``serve`` (``outcome`` ``skipped``; ``message`` starts with
        ``skipped: `` and says why). Not a failure: ``future.result()`` returns it."""
        return self.outcome == SKIPPED

    @property
    def restored(self) -> bool:
        """Whether the build cache put the job's artifacts back (``cache`` is ``hit`` or ``remote-hit``) rather
        than a worker building them."""
        return self.cache in RESTORED

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> "JobResult":
        """Reads a ``result`` message; a missing required field is a KeyError (the caller's protocol error)."""
        job = message["job"]
        return cls(
            id=job["id"],
            client_job_id=message["clientJobId"],
            kind=job.get("kind", ""),
            outcome=job["outcome"],
            exit_code=job.get("exitCode"),
            signal=job.get("signal"),
            artifacts=tuple(Artifact.from_json(a) for a in job.get("artifacts", ())),
            log_path=job.get("logPath"),
            log_tail=job.get("logTail"),
            message=job.get("message"),
            timings=Timings.from_json(job),
            phases=tuple(Phase.from_json(p) for p in job.get("phases", ())),
            worker=job.get("worker"),
            attempts=job.get("attempts", 0),
            attempt_failures=tuple(job.get("attemptFailures", ())),
            shared=bool(message.get("shared", job.get("shared", False))),
            warnings=tuple(job.get("warnings", ())),
            raw=dict(message),
            cache=job.get("cache"),
            cache_key=job.get("cacheKey"),
            cache_note=job.get("cacheNote"),
            cache_miss_reason=job.get("cacheMissReason"),
            expected_ms=job.get("expectedMs"),
            configure_seeded=job.get("configureSeeded"),
            target=None if job.get("target") is None else JobTarget.from_json(job["target"]),
        )


@dataclass(frozen=True)
class Target:
    """A target of ``serve``, resolved once when it started: ``platform`` ``cuda`` or ``hip``,
    ``archs`` in CMake's spelling (``90``, ``gfx942``), ``source`` (``flag``, ``env:CUDAARCHS``,
    ``detected:nvidia-smi``, ``fallback``) and ``detail`` (the exact input, e.g. ``--arch 90``)."""

    platform: str
    archs: Tuple[str, ...]
    source: str
    detail: Optional[str] = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Target":
        return cls(platform=data["platform"], archs=tuple(data["archs"]), source=data["source"],
                   detail=data.get("detail"))


@dataclass(frozen=True)
class ServeInfo:
    """The ``hello`` of ``archpool serve``: who answers, for what targets, with which pool.

    ``gpu_targets`` are the service's GPU targets, one per platform (``gpu_targets=["cuda:80,90", "hip:gfx942"]``); ``target``
    is the first of them (the only one, usually)."""

    service: int
    archpool_version: str
    pid: Optional[int]
    target: Target
    mode: Optional[str]
    launcher: Optional[str]
    workers: Optional[int]
    log_dir: Optional[str]
    report: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False, hash=False)
    #: How the workers are kept from seeing a GPU: ``namespace`` (a mount namespace masks the device nodes and
    #: driver views, as well as the visibility variables) or ``environment`` (the variables alone); None from a
    #: ``serve`` too old to say.
    device_isolation: Optional[str] = None
    #: Every target of ``serve``, one per platform, ``target`` first; ``(target,)`` from a ``serve`` too old to
    #: have several.
    gpu_targets: Tuple[Target, ...] = ()

    def __post_init__(self) -> None:
        if not self.gpu_targets:
            object.__setattr__(self, "gpu_targets", (self.target,))

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> "ServeInfo":
        pool = message.get("pool", {})
        target = Target.from_json(message["target"])
        gpu_targets = tuple(Target.from_json(t) for t in message.get("gpuTargets") or ()) or (target,)
        return cls(service=message["service"], archpool_version=message.get("archpoolVersion", ""),
                   pid=message.get("pid"), target=target, mode=pool.get("mode"),
                   launcher=pool.get("launcher"), workers=pool.get("workers"), log_dir=message.get("logDir"),
                   report=message.get("report"), raw=dict(message), device_isolation=pool.get("deviceIsolation"),
                   gpu_targets=gpu_targets)


@dataclass(frozen=True)
class Status:
    """A ``status`` answer: counts for the whole ``serve``, every client's jobs together."""

    queued: int
    running: int
    accepted: int
    clients: int
    workers: int
    live_workers: int
    outcomes: Dict[str, int]
    uptime_ms: int
    shutting_down: bool
    raw: Dict[str, Any] = field(repr=False, compare=False, hash=False)

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> "Status":
        workers = message.get("workers", {})
        return cls(queued=message.get("queued", 0), running=message.get("running", 0),
                   accepted=message.get("accepted", 0), clients=message.get("clients", 0),
                   workers=workers.get("size", 0), live_workers=workers.get("live", 0),
                   outcomes=dict(message.get("outcomes", {})), uptime_ms=message.get("uptimeMs", 0),
                   shutting_down=bool(message.get("shuttingDown", False)), raw=dict(message))


@dataclass(frozen=True)
class Bye:
    """The last message of a ``serve`` that was shut down: its report (or why it was not written)."""

    report: Optional[str]
    not_written: Optional[str]
    outcomes: Dict[str, int]
    raw: Dict[str, Any] = field(repr=False, compare=False, hash=False)

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> "Bye":
        return cls(report=message.get("report"), not_written=message.get("notWritten"),
                   outcomes=dict(message.get("outcomes", {})), raw=dict(message))
