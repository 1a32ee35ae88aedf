#!/usr/bin/env bash
# Tests the Python client as users install it: builds the platform wheel (scripts/build-wheel.sh), installs it
# into a fresh virtual environment, and runs the client's tests (clients/python/tests) there with no java on the
# PATH, no JAVA_HOME, and ARCHPOOL_HOME naming the distribution inside the installed wheel, so that every build
# they start runs on the wheel's own Java runtime; then the packaging tests (clients/python/packaging_tests:
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
trap 'rm -rf "$work"' EXIT

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
# Each run is cut off after 10 minutes (they take about one): SIGINT, so that pytest shows where it waited and
# its fixtures still stop what they started.
# Every serve the tests start keeps its build cache in this run's own folder, never in ~/.cache/archpool.
status=0
env -u JAVA_HOME -u PYTHONPATH PATH="$work/venv/bin:$nojava" ARCHPOOL_HOME="$site/archpool/_dist" \
  ARCHPOOL_CACHE_DIR="$work/cache" \
  timeout -s INT -k 60 600 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider clients/python/tests "$@" \
  || status=$?
ARCHPOOL_CACHE_DIR="$work/cache" \
  timeout -s INT -k 60 600 python3 -m pytest -q -p no:cacheprovider clients/python/packaging_tests "$@" || status=$?
exit "$status"
