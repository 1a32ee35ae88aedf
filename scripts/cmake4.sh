#!/usr/bin/env bash
# Installs CMake 4 from the `cmake` wheel into a virtual environment of its own, once, and prints the path of its
# `cmake`. The tests of configure seeding run it next to the system's CMake (ConfigureSeedIT; scripts/test.sh
# exports the path as ARCHPOOL_TEST_CMAKE4).
#
#   scripts/cmake4.sh            the folder is ${TMPDIR:-/tmp}/archpool-test-cmake4, or $ARCHPOOL_CMAKE4_DIR
set -euo pipefail
dir="${ARCHPOOL_CMAKE4_DIR:-${TMPDIR:-/tmp}/archpool-test-cmake4}"
if ! "$dir/bin/cmake" --version 2>/dev/null | grep -q '^cmake version 4\.'; then
  rm -rf "$dir"
  python3 -m venv "$dir" >&2
  # a machine without a network gets its wheels from pip's configured local indexes: no retries meanwhile
  "$dir/bin/python" -m pip install --quiet --retries 0 --timeout 10 'cmake>=4,<5' >&2
fi
echo "$dir/bin/cmake"
