#!/usr/bin/env bash
# Builds the platform wheel of the Python client: the archpool package (clients/python) plus the whole
# distribution as archpool/_dist (bin/, lib/*.jar, and a Java runtime jlink'd by scripts/bundle-runtime.sh with
# its CDS archive), so that `pip install` of that one file gives the `archpool` command and the client on a
# machine without Java. The wheel is tagged manylinux_X_Y for the highest glibc version the runtime's ELF files
# require, read from them: a runtime jlink'd from Debian 12's JDK 17 needs glibc 2.34, one from an Adoptium
# Temurin JDK 2.17 (docs/python-wheel.md). The runtime comes from $JAVA_HOME's jlink, else the PATH's.
# Prints the wheel's path on stdout.
# Usage: scripts/build-wheel.sh [DIST [OUTDIR]]   (DIST defaults to orchestrator/target/archpool, built by
#        mvn -B -q package -DskipTests; OUTDIR to orchestrator/target/wheels; needs python3 3.9+ and a JDK 17+)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${1:-$root/orchestrator/target/archpool}"
out="${2:-$root/orchestrator/target/wheels}"

if [ ! -x "$dist/bin/archpool" ] || [ ! -d "$dist/lib" ]; then
  echo "build-wheel: no distribution in $dist; build it first: mvn -B -q package -DskipTests" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "build-wheel: python3 not found: install Python 3.9 or newer (Debian: apt-get install python3)" >&2
  exit 2
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d "${TMPDIR:-/tmp}/archpool-wheel.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# A copy to bundle the runtime into, so that DIST stays as it was; its runtime/ and CDS archives would be
# replaced anyway (the archives name the path they were made at).
mkdir "$stage/archpool"
cp -R "$dist/bin" "$dist/lib" "$stage/archpool/"
rm -f "$stage/archpool/lib/"*.jsa
status=0
"$root/scripts/bundle-runtime.sh" "$stage/archpool" 2> "$stage/bundle.log" || status=$?
if [ "$status" -ne 0 ]; then
  cat "$stage/bundle.log" >&2
  exit "$status"
fi

wheel="$(cd "$root/clients/python" && python3 -c '
import sys
sys.path.insert(0, "_backend")
import archpool_build
print(archpool_build.build_wheel(sys.argv[1], {"dist": sys.argv[2]}))
' "$out" "$stage/archpool")"
echo "build-wheel: $out/$wheel ($(du -h "$out/$wheel" | cut -f1); the runtime: $(du -sh "$stage/archpool/runtime" | cut -f1))" >&2
echo "$out/$wheel"
