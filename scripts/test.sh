#!/usr/bin/env bash
# Runs every test on a fresh Debian/Ubuntu machine, as CI does, in five parts, each timed (wall and CPU):
#   packages     installs the system packages the tests need (scripts/setup-debian.sh --hip --browser --slurm
#                --nginx: CMake, Ninja, clang, python3 with venv and pytest, binutils, Debian's ROCm and LLVM 19,
#                chromium, Slurm and munge, nginx; nvcc must come with the machine)
#   services     starts the services the tests need: a one-node Slurm cluster and one of 3 nodes
#                (scripts/slurm-local.sh), a remote build cache on 127.0.0.1 (scripts/nginx-cache.sh, whose URL the
#                tests find in ARCHPOOL_TEST_REMOTE_CACHE), and CMake 4 from the cmake wheel beside the system's
#                (scripts/cmake4.sh, found by the tests in ARCHPOOL_TEST_CMAKE4); they start while the unit
#                tests run, and the part is what is left of their start once those are done
#   unit         `mvn -B install` of every module but the integration tests: their unit tests, and the distribution
#   integration  `mvn -B verify` of the integration tests, against that distribution
#   python       the Python client's tests against its platform wheel installed in a fresh virtual environment
#                with no Java on the PATH (scripts/test-python.sh)
# and stops what it started, however the tests end. It stops at the first part that fails, with that part's exit
# status, and prints what each part took (also when one failed).
#
#   scripts/test.sh                               everything
#   scripts/test.sh --only QuickstartIT,CacheIT   only these integration classes, with the services they need (the
#                                                 distribution is built, no unit test or Python test runs)
#   scripts/test.sh -Dsurefire.printSummary=true  extra arguments go to both Maven runs
#   scripts/test-python.sh                        only the Python client's tests (after mvn -B -q package -DskipTests)
#
# With CI=true in the environment, a test whose tool is missing fails instead of being skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

# A shell started in the background (`scripts/test.sh &`, `nohup ... &`, some CI runners) ignores SIGINT, and so
# would every process the tests start: the tests of Ctrl-C would see archpool ignore it (a JVM started with SIGINT
# ignored installs no handler for it). So the tests run with SIGINT at its default, however this script was started.
if (( (16#$(awk '/^SigIgn:/ {print $2}' /proc/$$/status) & 2) != 0 )); then
  exec env --default-signal=INT "$0" "$@"
fi

only=""
maven_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only)
      [ $# -ge 2 ] && [ -n "$2" ] || { echo "test: --only needs a list of integration classes, e.g. --only QuickstartIT,CacheIT" >&2; exit 2; }
      only="$2"; shift 2 ;;
    --only=*)
      only="${1#--only=}"; shift
      [ -n "$only" ] || { echo "test: --only= needs a list of integration classes, e.g. --only=QuickstartIT,CacheIT" >&2; exit 2; } ;;
    *) maven_args+=("$1"); shift ;;
  esac
done
if [ -n "$only" ]; then
  for class in ${only//,/ }; do
    if [ ! -f "integration-tests/src/test/java/org/archpool/it/$class.java" ]; then
      echo "test: --only $only: there is no integration class $class (they are the *IT classes in" \
        "integration-tests/src/test/java/org/archpool/it)" >&2
      exit 2
    fi
  done
fi

# Whether the run needs a service: every run does, a run of --only classes only when one of them uses it.
needs() {
  [ -z "$only" ] && return 0
  local class
  for class in ${only//,/ }; do
    for wanted in "$@"; do
      [ "$class" = "$wanted" ] && return 0
    done
  done
  return 1
}

# The parts' times, printed at the end however the run ends: the wall-clock time, and the CPU time the whole
# machine spent busy meanwhile (/proc/stat: user, nice, system, irq, softirq, steal; the services' daemons count
# too), from which the run's floor on this machine's CPUs follows: its CPU time spread evenly over them.
parts=()
part_started=0
cpus="$(nproc)"
ticks_per_second="$(getconf CLK_TCK)"
busy_ticks() {
  awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}
run_busy_started="$(busy_ticks)"
part_busy_started=0
begin() {
  part_name="$1"
  part_started=$SECONDS
  part_busy_started="$(busy_ticks)"
  echo "test: == $part_name" >&2
}
# one line of the report: name, wall seconds, CPU seconds since the given tick count, and what follows
part_line() {
  local cpu=$((($(busy_ticks) - $3) / ticks_per_second))
  printf '%-12s %5d s  CPU %5d s (%3d %% of %d CPUs)%s' "$1" "$2" "$cpu" \
    $((100 * cpu / ($2 > 0 ? $2 * cpus : cpus))) "$cpus" "$4"
}
end() {
  parts+=("$(part_line "$part_name" $((SECONDS - part_started)) "$part_busy_started" "")")
  part_name=""
}
report() {
  if [ -n "${part_name:-}" ]; then
    parts+=("$(part_line "$part_name" $((SECONDS - part_started)) "$part_busy_started" " (failed or stopped here)")")
  fi
  local cpu=$((($(busy_ticks) - run_busy_started) / ticks_per_second))
  echo "test: what each part took (CPU: the seconds the machine's CPUs were busy meanwhile):" >&2
  for line in "${parts[@]}"; do
    echo "test:   $line" >&2
  done
  echo "test:   $(part_line total "$SECONDS" "$run_busy_started" "")" >&2
  echo "test:   the floor on $cpus CPUs (CPU time / $cpus): $((cpu / cpus)) s; this run took" \
    "$((100 * SECONDS / (cpu > 0 ? cpu / cpus : 1))) % of it" >&2
}

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

# the one-node Slurm cluster for the tests of --launcher slurm, in a folder of its own, stopped on any exit
export ARCHPOOL_SLURM_DIR="${TMPDIR:-/tmp}/archpool-test-slurm"
export SLURM_CONF="$ARCHPOOL_SLURM_DIR/slurm.conf"
# a cluster of 3 nodes of 2 CPUs each, each node in namespaces of its own, for SlurmClusterIT, in another folder
export ARCHPOOL_TEST_SLURM_CLUSTER="${TMPDIR:-/tmp}/archpool-test-slurm-cluster"
# and the remote build cache for the tests of --remote-cache (RemoteCacheIT), in a folder of its own too
export ARCHPOOL_NGINX_DIR="${TMPDIR:-/tmp}/archpool-test-nginx"
cluster() {
  ARCHPOOL_SLURM_DIR="$ARCHPOOL_TEST_SLURM_CLUSTER" SLURM_CONF="$ARCHPOOL_TEST_SLURM_CLUSTER/slurm.conf" "$@"
}
# stops whatever is running, also what a run killed half-way left behind (the script's exit status stays that of
# the part that failed: each command here is allowed to fail, so that errexit never cuts the clean-up short)
# (services still starting in the background are let finish first, so that nothing they start outlives the stop)
services_pid=""
trap 'report || true; if [ -n "$services_pid" ]; then wait "$services_pid" 2>/dev/null || true; fi
  scripts/nginx-cache.sh stop || true; scripts/slurm-local.sh stop || true
  cluster scripts/slurm-local.sh stop || true; rm -f "${services_env:-}" "${services_log:-}"' EXIT

begin packages
scripts/setup-debian.sh --hip --browser --slurm --nginx
end

# Starts the services the run needs, and writes to file $1 the exports that tell the tests where they are.
start_services() {
  if needs SlurmIT; then
    scripts/slurm-local.sh start
  fi
  if needs SlurmClusterIT; then
    cluster env ARCHPOOL_SLURM_NODE_CPUS=2 scripts/slurm-local.sh start --nodes 3
  fi
  if needs RemoteCacheIT; then
    scripts/nginx-cache.sh start
    local url
    url="$(scripts/nginx-cache.sh url)"
    echo "export ARCHPOOL_TEST_REMOTE_CACHE=$(printf '%q' "$url")" >> "$1"
  fi
  if needs ConfigureSeedIT; then
    # CMake 4, from the cmake wheel, for the tests of configure seeding next to the system's CMake 3
    local cmake4
    cmake4="$(scripts/cmake4.sh)"
    echo "export ARCHPOOL_TEST_CMAKE4=$(printf '%q' "$cmake4")" >> "$1"
  fi
}
services_env="$(mktemp "${TMPDIR:-/tmp}/archpool-test-services.XXXXXX")"
services_log="$(mktemp "${TMPDIR:-/tmp}/archpool-test-services-log.XXXXXX")"

if [ -n "$only" ]; then
  begin services
  start_services "$services_env"
  . "$services_env"
  end
  begin build
  mvn -B -q install -DskipTests -pl '!integration-tests' "${maven_args[@]}"
  end
  begin integration
  mvn -B verify -pl integration-tests -Dit.test="$only" "${maven_args[@]}"
  end
  exit 0
fi

# The services start while the unit tests run (they need nothing of each other); the part "services" is what is
# left of their start once the unit tests are done.
start_services "$services_env" > "$services_log" 2>&1 &
services_pid=$!
begin unit
mvn -B install -pl '!integration-tests' "${maven_args[@]}"
end
begin services
services_status=0
wait "$services_pid" || services_status=$?
services_pid=""
cat "$services_log" >&2
if [ "$services_status" -ne 0 ]; then
  echo "test: starting the services failed (exit status $services_status): see above" >&2
  exit "$services_status"
fi
. "$services_env"
end
begin integration
mvn -B verify -pl integration-tests "${maven_args[@]}"
end
begin python
scripts/test-python.sh
end
