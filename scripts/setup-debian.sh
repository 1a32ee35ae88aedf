#!/usr/bin/env bash
# Installs what building and testing archpool needs on Debian/Ubuntu, only what is missing:
# Java 17+, Maven, CMake, Ninja, clang, and for the Python client's wheel and its tests (scripts/test-python.sh)
# python3 with venv and pytest, and readelf (binutils: the tests check the wheel's glibc tag against it). Checks
# that nvcc (the CUDA toolkit) is there; it is not a Debian package of the right version, so it must come with the
# machine (e.g. /usr/local/cuda).
#
# --hip also installs the AMD toolchains the tests build real HIP binaries with: Debian's ROCm (hipcc,
# libamdhip64, device libraries, rocminfo) and LLVM 19 (clang++-19 for gfx942/gfx1100, clang-offload-bundler-19
# and llvm-readelf-19, which the tests cross-check archpool's readers against).
# --browser also installs Debian's chromium (the HTML report is tested in it, headless).
# --slurm also installs Slurm (slurmctld, slurmd, its client commands) and munge: the tests of --launcher slurm
# run against a one-node cluster and one of 3 nodes that scripts/slurm-local.sh starts.
# --nginx also installs nginx (Debian's has the WebDAV module): the tests of --remote-cache run against the
# remote cache that scripts/nginx-cache.sh starts with it.
set -euo pipefail

hip=false
browser=false
slurm=false
nginx=false
for arg in "$@"; do
  case "$arg" in
    --hip) hip=true ;;
    --browser) browser=true ;;
    --slurm) slurm=true ;;
    --nginx) nginx=true ;;
    *) echo "setup: unknown option '$arg' (the options are --hip, --browser, --slurm and --nginx)" >&2; exit 2 ;;
  esac
done

need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
# jlink: scripts/bundle-runtime.sh and its test
command -v jlink >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
# clang++: the HIP toolchain check dry-runs it per target
command -v clang++ >/dev/null 2>&1 || need+=(clang)
# the Python client: a venv with pip (Debian's python3 has one only with python3-venv), pytest, readelf
if command -v python3 >/dev/null 2>&1; then
  probe="$(mktemp -d)"
  python3 -m venv "$probe/venv" >/dev/null 2>&1 || need+=(python3-venv)
  rm -rf "$probe"
  python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
else
  need+=(python3 python3-venv python3-pytest)
fi
command -v readelf >/dev/null 2>&1 || need+=(binutils)
if $hip; then
  command -v hipcc >/dev/null 2>&1 || need+=(hipcc libamdhip64-dev rocm-device-libs)
  command -v rocminfo >/dev/null 2>&1 || need+=(rocminfo)
  command -v clang++-19 >/dev/null 2>&1 || need+=(clang-19 lld-19 libclang-rt-19-dev)
  command -v llvm-readelf-19 >/dev/null 2>&1 || need+=(llvm-19)
  command -v clang-offload-bundler-19 >/dev/null 2>&1 || need+=(clang-tools-19)
fi
if $browser; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
fi
if $slurm; then
  command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
  command -v slurmd >/dev/null 2>&1 || [ -x /usr/sbin/slurmd ] || need+=(slurmd)
  command -v srun >/dev/null 2>&1 || need+=(slurm-client)
  command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ] || need+=(munge)
  # a cluster of several nodes: network namespaces, veth pairs and a bridge (ip), UTS namespaces (unshare, nsenter)
  command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || need+=(iproute2)
  command -v nsenter >/dev/null 2>&1 || need+=(util-linux)
fi
if $nginx; then
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
fi

if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${need[*]}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc is in /usr/local/cuda/bin but not on the PATH; add it: export PATH=/usr/local/cuda/bin:\$PATH" >&2
  exit 1
fi
command -v nvcc >/dev/null 2>&1 || {
  echo "setup: nvcc not found: install the CUDA toolkit (12.x or 13.x) to build the CUDA examples" >&2
  exit 1
}
echo "setup: java $(java -version 2>&1 | head -1 | cut -d'"' -f2), $(cmake --version | head -1), ninja $(ninja --version), $(nvcc --version | tail -1)" >&2
