#!/usr/bin/env bash
# Runs every test on a fresh Debian/Ubuntu machine, as CI does: installs the system packages the tests need
# (scripts/setup-debian.sh --hip --browser --slurm --nginx: CMake, Ninja, clang, python3 with venv and pytest,
# binutils, Debian's ROCm and LLVM 19, chromium, Slurm and munge, nginx; nvcc must come with the machine), starts the
# services they need (a one-node Slurm cluster and one of 3 nodes, scripts/slurm-local.sh; a remote build cache on 127.0.0.1,
# scripts/nginx-cache.sh, whose URL the tests find in ARCHPOOL_TEST_REMOTE_CACHE), installs CMake 4 from the cmake
# wheel beside the system's (scripts/cmake4.sh, found by the tests in ARCHPOOL_TEST_CMAKE4), runs `mvn -B verify` (unit tests,
# then the integration tests against the built distribution), then the Python client's tests against its platform
# wheel installed in a fresh virtual environment with no Java on the PATH (scripts/test-python.sh), and stops what it
# started, however the tests end.
# It stops at the first part that fails, with that part's exit status.
#
#   scripts/test.sh                 everything
#   scripts/test.sh -Dit.test=QuickstartIT    extra arguments go to Maven
#   scripts/test-python.sh          only the Python client's tests (after mvn -B -q package -DskipTests)
#
# With CI=true in the environment, a test whose tool is missing fails instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
scripts/setup-debian.sh --hip --browser --slurm --nginx

# the one-node Slurm cluster for the tests of --launcher slurm, in a folder of its own, stopped on any exit
export ARCHPOOL_SLURM_DIR="${TMPDIR:-/tmp}/archpool-test-slurm"
export SLURM_CONF="$ARCHPOOL_SLURM_DIR/slurm.conf"
# a cluster of 3 nodes of 2 CPUs each, each node in namespaces of its own, for SlurmClusterIT, in another folder
export ARCHPOOL_TEST_SLURM_CLUSTER="${TMPDIR:-/tmp}/archpool-test-slurm-cluster"
# and the remote build cache for the tests of --remote-cache (RemoteCacheIT), in a folder of its own too
export ARCHPOOL_NGINX_DIR="${TMPDIR:-/tmp}/archpool-test-nginx"
trap 'scripts/nginx-cache.sh stop || true; scripts/slurm-local.sh stop || true
  ARCHPOOL_SLURM_DIR="$ARCHPOOL_TEST_SLURM_CLUSTER" SLURM_CONF="$ARCHPOOL_TEST_SLURM_CLUSTER/slurm.conf" scripts/slurm-local.sh stop || true' EXIT
scripts/slurm-local.sh start
ARCHPOOL_SLURM_DIR="$ARCHPOOL_TEST_SLURM_CLUSTER" SLURM_CONF="$ARCHPOOL_TEST_SLURM_CLUSTER/slurm.conf" \
  ARCHPOOL_SLURM_NODE_CPUS=2 scripts/slurm-local.sh start --nodes 3
scripts/nginx-cache.sh start
ARCHPOOL_TEST_REMOTE_CACHE="$(scripts/nginx-cache.sh url)"
export ARCHPOOL_TEST_REMOTE_CACHE
# CMake 4, from the cmake wheel, for the tests of configure seeding next to the system's CMake 3
ARCHPOOL_TEST_CMAKE4="$(scripts/cmake4.sh)"
export ARCHPOOL_TEST_CMAKE4

mvn -B verify "$@"
scripts/test-python.sh
