#!/usr/bin/env bash
# Installs what building and testing archpool needs on Debian/Ubuntu, only what is missing:
# Java 17+, Maven, CMake, Ninja, clang. Checks that nvcc (the CUDA toolkit) is there; it is not a Debian package
# of the right version, so it must come with the machine (e.g. /usr/local/cuda).
set -euo pipefail

need=()
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
# clang++: the HIP toolchain check dry-runs it per target
command -v clang++ >/dev/null 2>&1 || need+=(clang)

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
