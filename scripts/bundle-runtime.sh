#!/usr/bin/env bash
# Bundles a Java runtime with the built distribution, for machines without Java (HPC compute nodes, GPU
# boxes): jlinks the modules archpool needs into orchestrator/target/archpool/runtime, which bin/archpool
# uses when present, and generates the runtime's CDS archive (class data sharing: faster JVM starts for the
# coordinator and every worker), then archpool's own archives for it (scripts/cds-archives.sh). The runtime
# needs the glibc of the JDK it comes from: 2.34 or newer from Debian 12's JDK 17, 2.17 or newer from an
# Adoptium Temurin JDK (docs/python-wheel.md has the measurement).
# Usage: scripts/bundle-runtime.sh [DIST]   (DIST defaults to orchestrator/target/archpool, built by
#        mvn -B -q package -DskipTests; needs a JDK 17+ with jlink)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${1:-$root/orchestrator/target/archpool}"
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.unsupported

if [ ! -d "$dist/lib" ]; then
  echo "bundle-runtime: no distribution in $dist; build it first: mvn -B -q package -DskipTests" >&2
  exit 2
fi
jlink="${JAVA_HOME:+$JAVA_HOME/bin/}jlink"
if ! command -v "$jlink" >/dev/null 2>&1; then
  echo "bundle-runtime: jlink not found: install a JDK 17 or newer (not a JRE) or set JAVA_HOME to one" >&2
  exit 2
fi

rm -rf "$dist/runtime"
"$jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$dist/runtime"
# the default CDS archive of the runtime's own classes (lib/server/classes.jsa), used by -Xshare:auto
"$dist/runtime/bin/java" -Xshare:dump > /dev/null
# archpool's own archives (lib/*.jsa) build on that one: make them anew for this runtime
"$root/scripts/cds-archives.sh" "$dist"
"$dist/bin/archpool" --version > /dev/null
echo "bundle-runtime: $dist/runtime ($(du -sh "$dist/runtime" | cut -f1), CDS archive" \
  "$(du -h "$dist/runtime/lib/server/classes.jsa" | cut -f1)); the whole distribution is $(du -sh "$dist" | cut -f1)" >&2
