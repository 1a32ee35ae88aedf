#!/usr/bin/env bash
# Prints the resident memory of idle archpool workers, started as the coordinator starts them: runs a
# build of N jobs that each report their worker's RSS from /proc, at -jN, then prints the figures.
# Usage: scripts/worker-rss.sh [N]   (after 'mvn -B -q package -DskipTests')
set -euo pipefail
n="${1:-4}"
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
{
  printf '{"version":1,"jobs":['
  for i in $(seq 1 "$n"); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"id":"rss%s","kind":"command","argv":["sh","-c","sleep 1; grep VmRSS /proc/$PPID/status >> rss.txt"]}' "$i"
  done
  printf ']}'
} > "$dir/archpool.json"
"$here/orchestrator/target/archpool/bin/archpool" build "$dir/archpool.json" --arch 90 -j "$n" > /dev/null
awk '{ sum += $2; if ($2 > max) max = $2 } END { printf "%d workers, resident memory while running a job: mean %.1f MiB, max %.1f MiB\n", NR, sum / NR / 1024, max / 1024 }' "$dir/rss.txt"
