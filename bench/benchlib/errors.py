"""The two ways bench/run stops early, each with its exit status."""


class UsageError(Exception):
    """Wrong options, a missing tool or a missing archpool: nothing was measured (exit 2)."""

    exit_status = 2


class BenchError(Exception):
    """A contender failed or built something other than it should have: the figures would lie (exit 1)."""

    exit_status = 1
