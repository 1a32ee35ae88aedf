#!/usr/bin/env bash
# On a Linux machine with an NVIDIA GPU, nvcc, CMake and Ninja: proves what CI (no GPU) cannot.
#  1. `archpool arch --json` with no hints detects the GPU with nvidia-smi;
#  2. the quickstart builds with no --arch, for what was detected;
#  3. every built *_check executable runs its kernels and checks the results on the GPU;
#  4. the same executables, run as archpool jobs inside workers, see no GPU (they exit 2: no device).
# Usage: scripts/gpu-acceptance.sh [OUTPUT_DIR]   (from a built distribution: orchestrator/target/archpool)
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
archpool="$here/orchestrator/target/archpool/bin/archpool"
fail=0
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1"; fail=1; fi; }

unset CUDAARCHS HIPARCHS CUDA_VISIBLE_DEVICES
"$archpool" arch --json > "$out/arch.json" 2> "$out/arch.err"
check "arch detects cuda 90 with nvidia-smi" \
  "grep -q '\"platform\" : \"cuda\"' '$out/arch.json' && grep -q '\"source\" : \"detected:nvidia-smi\"' '$out/arch.json'"
nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1

work="$(mktemp -d)"
cp -r "$here/examples/quickstart" "$work/"
rm -rf "$work/quickstart/build" "$work/quickstart/.archpool"
"$archpool" build "$work/quickstart/archpool.json" -j4 --report "$out/build-report.json" > "$out/build.txt" 2>&1
rc=$?
check "quickstart builds with no --arch" "[ $rc -eq 0 ] && grep -q '6 of 6 jobs succeeded' '$out/build.txt'"

: > "$out/checks.txt"
for exe in "$work"/quickstart/build/*/*_check; do
  "$exe" >> "$out/checks.txt" 2>&1 || fail=1
done
check "every kernel check passes on the GPU" "[ \$(grep -c ': OK' '$out/checks.txt') -eq 6 ]"

{
  printf '{"version":1,"jobs":['
  n=0
  for exe in "$work"/quickstart/build/*/*_check; do
    [ $n -gt 0 ] && printf ','
    printf '{"id":"blind%s","kind":"command","argv":["%s"]}' "$n" "$exe"
    n=$((n + 1))
  done
  printf ']}'
} > "$work/blind.json"
"$archpool" build "$work/blind.json" -j2 -k --no-toolchain-check --verify off --report "$out/blind-report.json" \
  > "$out/blind.txt" 2>&1
cat "$work"/.archpool/logs/blind*.log > "$out/blind-logs.txt" 2>/dev/null
check "jobs inside workers see no GPU (every check says so and exits 2)" \
  "[ \$(grep -c 'no CUDA device visible' '$out/blind-logs.txt') -eq 6 ] && [ \$(grep -c 'exited with status 2' '$out/blind-logs.txt') -eq 6 ]"
exit $fail
