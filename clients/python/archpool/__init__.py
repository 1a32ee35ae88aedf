"""archpool: build GPU kernels in parallel for one resolved architecture, from Python.

``archpool.Pool()`` starts ``archpool serve`` and takes jobs as they come; each ``submit_*`` returns a
``concurrent.futures.Future`` of a :class:`JobResult`. ``archpool.connect(path)`` joins a ``serve --socket``
shared by several processes. The protocol underneath: docs/service.md.
"""

from ._errors import (ArchpoolError, ArchpoolNotFoundError, ArchResolutionError, BuildError, JobRejectedError,
                      PoolClosedError, ProtocolError, ServeDiedError, ServeError, UsageError)
from ._future import JobFuture
from ._locate import find_archpool
from ._pool import Pool, connect
from ._protocol import SERVICE_VERSION
from ._results import Artifact, Bye, JobResult, JobTarget, Phase, ServeInfo, Status, Target, Timings

__version__ = "0.1.0.dev0"

__all__ = [
    "__version__",
    "SERVICE_VERSION",
    "Pool",
    "connect",
    "find_archpool",
    "JobFuture",
    "JobResult",
    "JobTarget",
    "Artifact",
    "Phase",
    "Timings",
    "Target",
    "ServeInfo",
    "Status",
    "Bye",
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
