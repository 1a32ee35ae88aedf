"""A Pool's keyword options are serve's flags, one each; anything else is a TypeError naming it."""

from datetime import timedelta
from pathlib import Path

import pytest

import archpool
from archpool._options import serve_flags


def flags(**options: object) -> list:
    return serve_flags(None, None, None, options)


def test_each_option_is_its_flag() -> None:
    assert flags(verify="strict", timeout="10m", retries=1, mode="process", log_dir=Path("/l"),
                 fallback_arch=["80", "90"], quiet=True, no_toolchain_check=True, srun_arg=["--mem=2G", "-N1"]) == [
        "--verify", "strict", "--timeout", "10m", "--retries", "1", "--mode", "process", "--log-dir", "/l",
        "--fallback-arch", "80;90", "-q", "--no-toolchain-check", "--srun-arg=--mem=2G", "--srun-arg=-N1"]


def test_false_and_none_leave_a_flag_out() -> None:
    assert flags(quiet=False, verbose=None, forbid_hostcall=False) == []


def test_durations_may_be_seconds_or_timedeltas() -> None:
    assert flags(timeout=90, probe_timeout=1.5, heartbeat_timeout=timedelta(minutes=2)) == [
        "--timeout", "90s", "--probe-timeout", "1500ms", "--heartbeat-timeout", "120s"]


def test_jobs_platform_and_arch_come_first() -> None:
    assert serve_flags(4, "cuda", ["80", 90], {}) == ["-j", "4", "--platform", "cuda", "--arch", "80;90"]


def test_unknown_options_are_a_type_error_naming_each() -> None:
    with pytest.raises(TypeError, match=r"unknown options 'colour', 'log_folder'; the options are .*log_dir"):
        archpool.Pool(log_folder="x", colour=True)


@pytest.mark.parametrize("options, wrong", [
    ({"retries": "1"}, "retries must be an int"),
    ({"quiet": 1}, "quiet must be True or False"),
    ({"timeout": [1]}, "timeout must be a duration"),
    ({"verify": 3}, "verify must be a string"),
])
def test_values_of_the_wrong_type_are_a_type_error(options: dict, wrong: str) -> None:
    with pytest.raises(TypeError, match=wrong):
        flags(**options)


def test_every_flag_of_serve_is_an_option(archpool_home: Path) -> None:
    """The options follow serve's own --help: a flag added to serve without an option here fails this test."""
    import re
    import subprocess

    from archpool._options import OPTIONS

    shown = subprocess.run([str(archpool_home / "bin" / "archpool"), "serve", "--help"], capture_output=True,
                           text=True, timeout=60, check=True).stdout
    served = set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z-]+)", shown, re.MULTILINE))
    # given as Pool's own arguments, chosen by the client (--stdio, --socket) or not an option of a session
    apart = {"jobs", "platform", "arch", "stdio", "socket", "stop", "stop-timeout", "help", "version", "quiet",
             "verbose"}
    plural = {"target": "gpu_targets"}  # a repeated flag whose option is a list
    missing = sorted(flag for flag in served - apart if plural.get(flag, flag.replace("-", "_")) not in OPTIONS)
    assert missing == [], f"serve flags with no Pool option: {missing}"
    assert flags(isolate_devices="on") == ["--isolate-devices", "on"]


def test_the_cache_options_are_their_flags() -> None:
    assert flags(cache=Path("/var/cache/k"), remote_cache="https://cache.example/k", remote_cache_read_only=True,
                 remote_cache_timeout=2.5, cache_max_size="10G") == [
        "--cache", "/var/cache/k", "--remote-cache", "https://cache.example/k", "--remote-cache-read-only",
        "--remote-cache-timeout", "2500ms", "--cache-max-size", "10G"]
    assert flags(no_cache=True) == ["--no-cache"]
    assert flags(remote_cache_timeout="30s", cache="rel/c") == ["--remote-cache-timeout", "30s", "--cache", "rel/c"]
    assert flags(no_cache=False, remote_cache_read_only=False, cache=None, remote_cache=None) == []


def test_sizes_may_be_strings_or_numbers_of_bytes() -> None:
    assert flags(cache_max_size=10 * 1024 ** 3, max_log_size="64M") == [
        "--cache-max-size", "10737418240", "--max-log-size", "64M"]
    assert flags(cache_max_size=0, max_log_size=0) == ["--cache-max-size", "0", "--max-log-size", "0"]
    with pytest.raises(ValueError, match="cache_max_size must not be negative"):
        flags(cache_max_size=-1)


@pytest.mark.parametrize("options, wrong", [
    ({"cache": 3}, "cache must be a string"),
    ({"no_cache": "yes"}, "no_cache must be True or False"),
    ({"remote_cache": b"https://c"}, "remote_cache must be a string"),
    ({"remote_cache_read_only": 1}, "remote_cache_read_only must be True or False"),
    ({"remote_cache_timeout": [10]}, "remote_cache_timeout must be a duration"),
    ({"cache_max_size": 1.5}, "cache_max_size must be a size"),
    ({"cache_max_size": True}, "cache_max_size must be a size"),
])
def test_cache_values_of_the_wrong_type_are_a_type_error(options: dict, wrong: str) -> None:
    with pytest.raises(TypeError, match=wrong):
        flags(**options)


def test_the_schedule_options_are_their_flags() -> None:
    assert flags(order="fifo", no_configure_seed=True) == ["--order", "fifo", "--no-configure-seed"]
    assert flags(order="longest-first") == ["--order", "longest-first"]
    assert flags(order=None, no_configure_seed=False) == []
    assert serve_flags(2, "cuda", "90", {"no_configure_seed": True}) == [
        "-j", "2", "--platform", "cuda", "--arch", "90", "--no-configure-seed"]


@pytest.mark.parametrize("options, wrong", [
    ({"order": 1}, "order must be a string"),
    ({"no_configure_seed": "yes"}, "no_configure_seed must be True or False"),
    ({"no_configure_seed": 1}, "no_configure_seed must be True or False"),
])
def test_schedule_values_of_the_wrong_type_are_a_type_error(options: dict, wrong: str) -> None:
    with pytest.raises(TypeError, match=wrong):
        flags(**options)


def test_targets_are_one_target_flag_each() -> None:
    assert flags(gpu_targets=["cuda:80,90", "hip:gfx942"]) == ["--target", "cuda:80,90", "--target", "hip:gfx942"]
    assert flags(gpu_targets=("cuda:90a",)) == ["--target", "cuda:90a"]
    assert flags(gpu_targets=None) == [] and flags(gpu_targets=[]) == []


def test_with_targets_the_default_platform_is_left_out_and_a_chosen_one_kept() -> None:
    """Pool's platform="auto" is a default, not a choice; --platform or --arch with --target is serve's error."""
    assert serve_flags(2, "auto", None, {"gpu_targets": ["cuda:80,90"]}) == ["-j", "2", "--target", "cuda:80,90"]
    assert serve_flags(None, "cuda", "90", {"gpu_targets": ["cuda:80"]}) == [
        "--platform", "cuda", "--arch", "90", "--target", "cuda:80"]
    assert serve_flags(None, "auto", None, {"order": "fifo"}) == ["--platform", "auto", "--order", "fifo"]


@pytest.mark.parametrize("value, wrong", [
    ("cuda:90", r"gpu_targets must be a list of strings .*, not one str \(write gpu_targets=\['cuda:90'\]\)"),
    (["cuda:90", 3], r"gpu_targets must be a list of strings .*, not list"),
    (7, r"gpu_targets must be a list of strings .*, not int"),
])
def test_targets_of_the_wrong_type_are_a_type_error(value: object, wrong: str) -> None:
    with pytest.raises(TypeError, match=wrong):
        flags(gpu_targets=value)
