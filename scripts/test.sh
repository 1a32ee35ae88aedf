#!/usr/bin/env bash
# Runs every test on a fresh Debian/Ubuntu machine, as CI does: installs the system packages the tests need
# (scripts/setup-debian.sh --hip --browser --slurm: CMake, Ninja, clang, Debian's ROCm and LLVM 19, chromium,
# python3, Slurm and munge; nvcc must come with the machine), starts the services they need (a one-node Slurm
# cluster, scripts/slurm-local.sh), runs `mvn -B verify` (unit tests, then the integration tests against the
# built distribution), and stops what it started, however the tests end. Its exit status is Maven's.
#
#   scripts/test.sh                 everything
#   scripts/test.sh -Dit.test=QuickstartIT    extra arguments go to Maven
#
# With CI=true in the environment, a test whose tool is missing fails instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
scripts/setup-debian.sh --hip --browser --slurm

# the one-node Slurm cluster for the tests of --launcher slurm, in a folder of its own, stopped on any exit
export ARCHPOOL_SLURM_DIR="${TMPDIR:-/tmp}/archpool-test-slurm"
export SLURM_CONF="$ARCHPOOL_SLURM_DIR/slurm.conf"
trap 'scripts/slurm-local.sh stop || true' EXIT
scripts/slurm-local.sh start

mvn -B verify "$@"
