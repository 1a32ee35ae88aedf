#!/usr/bin/env bash
# Tests the Python client as users install it: builds the platform wheel (scripts/build-wheel.sh), installs it
# into a fresh virtual environment, and runs the client's tests (clients/python/tests) there with no java on the
# PATH, no JAVA_HOME, and ARCHPOOL_HOME naming the distribution inside the installed wheel, so that every build
# they start runs on the wheel's own Java runtime; beside them the packaging tests (clients/python/packaging_tests:
# both wheels and the sdist, built with no package index). scripts/test.sh runs this after the Maven tests.
# Needs the distribution (mvn -B -q package -DskipTests), a JDK's jlink, python3 with venv and pytest
# (scripts/setup-debian.sh installs them). Extra arguments go to both pytest runs (e.g. -x, -k NAME).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import pytest' 2>/dev/null; then
  echo "test-python: pytest is not installed for $(command -v python3 || echo python3); run scripts/setup-debian.sh" \
    "(Debian: apt-get install python3-pytest)" >&2
  exit 2
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/archpool-python-test.XXXXXX")"
client=""
# the client's run goes on in the background: it stops with this script, however this script ends
trap 'if [ -n "$client" ]; then kill "$client" 2>/dev/null || true; wait "$client" 2>/dev/null || true; fi
  rm -rf "$work"' EXIT

wheel="$(scripts/build-wheel.sh orchestrator/target/archpool "$work/wheels")"
# pytest comes from the system's site-packages
python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel"
site="$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')"
nojava="$(python3 -c 'import sys; sys.path.insert(0, "clients/python/packaging_tests"); import support, pathlib
print(support.link_programs_without_java(pathlib.Path(sys.argv[1])))' "$work/path-without-java")"

# The suite imports the package from this checkout (its conftest.py) and runs every build on the distribution
# ARCHPOOL_HOME names: here the one pip installed from the wheel, on the wheel's own Java runtime. The packaging
# tests check the installed package itself (find_archpool, the archpool command).
# The two runs share nothing (each its own temporary folders and cache) and mostly wait on processes, so they run
# side by side, each into a log of its own that is printed when both have ended: 85-115 s instead of 150.
# Each run is cut off after 10 minutes (they take about one): SIGINT, so that pytest shows where it waited and
# its fixtures still stop what they started.
# Every serve the tests start keeps its build cache in this run's own folder, never in ~/.cache/archpool.
env -u JAVA_HOME -u PYTHONPATH PATH="$work/venv/bin:$nojava" ARCHPOOL_HOME="$site/archpool/_dist" \
  ARCHPOOL_CACHE_DIR="$work/cache/client" \
  timeout -s INT -k 60 600 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider clients/python/tests "$@" \
  > "$work/client.log" 2>&1 &
client=$!
packaging_status=0
ARCHPOOL_CACHE_DIR="$work/cache/packaging" \
  timeout -s INT -k 60 600 python3 -m pytest -q -p no:cacheprovider clients/python/packaging_tests "$@" \
  > "$work/packaging.log" 2>&1 || packaging_status=$?
client_status=0
wait "$client" || client_status=$?
echo "test-python: == the client's tests (clients/python/tests): exit status $client_status"
cat "$work/client.log"
echo "test-python: == the packaging tests (clients/python/packaging_tests): exit status $packaging_status"
cat "$work/packaging.log"
if [ "$client_status" -ne 0 ]; then
  exit "$client_status"
fi
exit "$packaging_status"
