#!/usr/bin/env bash
# Generates the distribution's CDS archives (class data sharing): lib/archpool.jsa for the coordinator and
# lib/worker.jsa for workers, by running one small build with the distribution's own launcher and Java under
# -XX:ArchiveClassesAtExit. bin/archpool and the coordinator use them when present: a worker then says hello
# in about a third of the time (docs/performance.md). A JVM that cannot use an archive (another Java, or a
# distribution moved after this ran) ignores it and starts as it would without. Maven's package phase runs
# this; scripts/bundle-runtime.sh runs it again for the bundled runtime.
# Usage: scripts/cds-archives.sh [DIST]   (DIST defaults to orchestrator/target/archpool)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dist="$(cd "${1:-$root/orchestrator/target/archpool}" && pwd)"

if [ ! -x "$dist/bin/archpool" ]; then
  echo "cds-archives: no distribution in $dist; build it first: mvn -B -q package -DskipTests" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# An archive in place would be used by the very JVMs that are to write the new one; a JVM refuses both.
rm -f "$dist/lib/archpool.jsa" "$dist/lib/worker.jsa"

# One job that writes a file and one that fails: the classes of a build's usual paths, outcomes and outputs.
cat > "$work/archpool.json" <<'JSON'
{"version": 1, "jobs": [
  {"id": "writes", "kind": "command", "argv": ["sh", "-c", "printf 'no GPU code' > out.bin"]},
  {"id": "fails", "kind": "command", "argv": ["sh", "-c", "echo failing on purpose >&2; exit 3"]}
]}
JSON
status=0
ARCHPOOL_JAVA_OPTS="-XX:ArchiveClassesAtExit=$dist/lib/archpool.jsa" \
ARCHPOOL_WORKER_JAVA_OPTS="-XX:ArchiveClassesAtExit=$dist/lib/worker.jsa" \
  "$dist/bin/archpool" build "$work/archpool.json" --arch 90 -j1 -k --no-toolchain-check \
  --report "$work/report.json" --metrics "$work/metrics.prom" --junit "$work/junit.xml" \
  > "$work/build.log" 2>&1 || status=$?
if [ "$status" -ne 1 ]; then   # 1: the job that fails on purpose
  echo "cds-archives: the training build ended with exit code $status instead of 1:" >&2
  tail -20 "$work/build.log" >&2
  exit 1
fi
for archive in archpool.jsa worker.jsa; do
  if [ ! -s "$dist/lib/$archive" ]; then
    # e.g. a JVM without a default CDS archive to build on: archpool works, only starts slower
    echo "cds-archives: warning: this Java wrote no $archive; archpool works without it, but starts slower" >&2
  fi
done
echo "cds-archives: $(cd "$dist/lib" && ls -s --block-size=M ./*.jsa 2>/dev/null | tr '\n' ' ')" >&2
