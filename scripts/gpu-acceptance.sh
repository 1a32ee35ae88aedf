#!/usr/bin/env bash
# On a Linux machine with an NVIDIA GPU, nvcc, CMake and Ninja: proves what CI (no GPU) cannot.
#  1. `archpool arch --json` with no hints reports cuda 90, detected by nvidia-smi, with the name and UUID
#     nvidia-smi itself gives;
#  2. the quickstart builds with no --arch, for what was detected;
#  3. every built *_check executable runs its kernels and checks the results on the GPU;
#  4. the same executables, run as archpool jobs inside workers, see no GPU (they exit 2: no device);
#  5. while a parent process keeps a kernel busy on the GPU, archpool builds, and nvidia-smi's list of
#     compute processes, sampled throughout, never shows anything but that parent;
#  6. with CUDA_VISIBLE_DEVICES set to the GPU's UUID, resolution follows it; with an invalid value it
#     fails clearly (exit code 3, no stack trace);
#  7. archpool's fat-binary reader agrees with `cuobjdump --list-elf` on every built artifact;
#  8. with --isolate-devices on, while a parent runs a kernel, jobs that run `nvidia-smi -L`, open
#     /dev/nvidia0 and call the CUDA runtime with CUDA_VISIBLE_DEVICES=0 set by themselves all fail inside
#     the workers (masked device nodes and driver views), and the parent's kernel runs on.
# It prints a result table and the timings (probe, worker start, quickstart at -j16), and exits non-zero
# on any failed check. Needs python3 (to read JSON) and cuobjdump besides the above.
# Usage: scripts/gpu-acceptance.sh [OUTPUT_DIR]   (from a built distribution: orchestrator/target/archpool)
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
archpool="$here/orchestrator/target/archpool/bin/archpool"
fail=0
results=()
check() {
  if eval "$2"; then results+=("PASS  $1"); echo "PASS $1"; else results+=("FAIL  $1"); echo "FAIL $1"; fail=1; fi
}
now() { date +%s.%N; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

unset CUDAARCHS HIPARCHS CUDA_VISIBLE_DEVICES
"$archpool" arch --json > "$out/arch.json" 2> "$out/arch.err"
nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1
seen=$(json "$out/arch.json" "d['platform'] + ' ' + ';'.join(d['archs']) + ' ' + d['source'] + ' ' + d['devices'][0]['uuid'] + ' ' + d['devices'][0]['name']" 2>/dev/null)
smi=$(head -1 "$out/nvidia-smi.txt" | awk -F', ' '{print $2 " " $4}')
check "arch --json with no hints: $seen" \
  "[ -n '$smi' ] && [ '$seen' = 'cuda 90 detected:nvidia-smi $smi' ]"

work="$(mktemp -d)"
cp -r "$here/examples/quickstart" "$work/"
rm -rf "$work/quickstart/build" "$work/quickstart/.archpool"
t0=$(now)
"$archpool" build "$work/quickstart/archpool.json" -j16 --report "$out/build-report.json" > "$out/build.txt" 2>&1
rc=$?
t1=$(now)
quickstart_s=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
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
# 5. a busy GPU in the parent; no worker or compiler ever shows up as a GPU process
cat > "$work/busy.cu" <<'CU'
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
__global__ void spin(long long cycles) { long long t = clock64(); while (clock64() - t < cycles) { } }
int main(int argc, char **argv) {
  if (argc < 2 || cudaSetDevice(0) != cudaSuccess) { fprintf(stderr, "no device\n"); return 2; }
  struct stat st;
  for (int i = 0; i < 6000 && stat(argv[1], &st) != 0; i++) {  /* at most ~5 minutes */
    spin<<<1, 1>>>(100000000LL);
    if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  }
  return 0;
}
CU
nvcc -o "$work/busy" "$work/busy.cu" > "$out/busy-build.txt" 2>&1
"$work/busy" "$work/stop" & busy_pid=$!
for _ in $(seq 50); do
  nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -qw "$busy_pid" && break
  sleep 0.2
done
: > "$out/compute-apps.txt"
( while [ ! -e "$work/stop" ]; do
    nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader >> "$out/compute-apps.txt" 2>&1
    echo "--" >> "$out/compute-apps.txt"; sleep 0.2
  done ) & sampler=$!
rm -rf "$work/quickstart/build" "$work/quickstart/.archpool"
"$archpool" build "$work/quickstart/archpool.json" -j16 --report "$out/busy-report.json" > "$out/busy-build-log.txt" 2>&1
busy_rc=$?
touch "$work/stop"; wait "$sampler"; wait "$busy_pid"
samples=$(grep -c '^--' "$out/compute-apps.txt")
others=$(grep -v '^--' "$out/compute-apps.txt" | grep -vw "^$busy_pid" | grep -c . || true)
check "a busy GPU in the parent; $samples samples of nvidia-smi compute apps show only it while archpool builds" \
  "[ $busy_rc -eq 0 ] && [ $samples -ge 5 ] && [ $others -eq 0 ] && grep -qw '^$busy_pid' '$out/compute-apps.txt'"

# 6. CUDA_VISIBLE_DEVICES is followed: the GPU's UUID selects it; an invalid value fails clearly
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1 | tr -d ' ')
CUDA_VISIBLE_DEVICES="$uuid" "$archpool" arch --json > "$out/arch-uuid.json" 2> "$out/arch-uuid.err"
uuid_rc=$?
uuid_target=$(json "$out/arch-uuid.json" "d['platform'] + ' ' + ';'.join(d['archs'])" 2>/dev/null)
check "CUDA_VISIBLE_DEVICES=$uuid resolves cuda 90 from that device" \
  "[ $uuid_rc -eq 0 ] && [ '$uuid_target' = 'cuda 90' ] && grep -q '$uuid' '$out/arch-uuid.json'"
CUDA_VISIBLE_DEVICES="GPU-00000000-0000-0000-0000-000000000000" "$archpool" arch --json \
  > "$out/arch-invalid.json" 2> "$out/arch-invalid.err"
invalid_rc=$?
check "an invalid CUDA_VISIBLE_DEVICES fails clearly (exit 3, names the variable, no stack trace)" \
  "[ $invalid_rc -eq 3 ] && grep -q CUDA_VISIBLE_DEVICES '$out/arch-invalid.err' && ! grep -q 'Exception' '$out/arch-invalid.err'"

# 7. archpool's reader against cuobjdump, on every artifact the build reported
: > "$out/cuobjdump.txt"
agree=0; total=0; withcode=0
for f in $(json "$out/build-report.json" "'\\n'.join(a['path'] for j in d['jobs'] for a in j['artifacts'])"); do
  total=$((total + 1))
  ours=$("$archpool" inspect --json "$f" | python3 -c "import json,sys; print(' '.join(sorted({c['arch'] for c in json.load(sys.stdin)[0]['cuda'] if c['kind'] == 'cubin'})))")
  theirs=$(cuobjdump --list-elf "$f" 2>/dev/null | grep -o 'sm_[0-9]*[af]\?' | sort -u | tr '\n' ' ' | sed 's/ $//')
  echo "$f: archpool [$ours] cuobjdump [$theirs]" >> "$out/cuobjdump.txt"
  [ "$ours" = "$theirs" ] && agree=$((agree + 1))
  [ -n "$ours" ] && withcode=$((withcode + 1))
done
check "archpool inspect agrees with cuobjdump --list-elf on $agree of $total artifacts ($withcode with device code)" \
  "[ $withcode -gt 0 ] && [ $agree -eq $total ]"

# 8. device isolation: what ignores the visibility variables still finds no GPU inside a worker
"$work/busy" "$work/stop8" & busy8_pid=$!
cat > "$work/isolated.json" <<JSON
{"version":1,"jobs":[
 {"id":"smi","kind":"command","argv":["nvidia-smi","-L"]},
 {"id":"open","kind":"command","argv":["sh","-c","exec 3< /dev/nvidia0 && echo opened /dev/nvidia0"]},
 {"id":"cudart","kind":"command","argv":["env","CUDA_VISIBLE_DEVICES=0","NVIDIA_VISIBLE_DEVICES=all","$work/busy","/"]}
]}
JSON
"$archpool" build "$work/isolated.json" -j3 -k --no-toolchain-check --verify off --isolate-devices on \
  --report "$out/isolated-report.json" > "$out/isolated.txt" 2>&1
cat "$work"/.archpool/logs/{smi,open,cudart}.log > "$out/isolated-logs.txt" 2>/dev/null
touch "$work/stop8"; wait "$busy8_pid"; busy8_rc=$?
isolated=$(json "$out/isolated-report.json" "d['pool']['deviceIsolation'] + ' ' + ' '.join(j['outcome'] for j in d['jobs'])" 2>/dev/null)
check "isolated workers: nvidia-smi -L, opening /dev/nvidia0 and the CUDA runtime all fail while the parent's kernel runs ($isolated)" \
  "[ '$isolated' = 'namespace failed failed failed' ] && ! grep -q '^GPU 0:' '$out/isolated-logs.txt' && ! grep -qx 'opened /dev/nvidia0' '$out/isolated-logs.txt' && [ $busy8_rc -eq 0 ]"

probe_ms=$(json "$out/arch.json" "', '.join(p['tool'] + ' ' + str(p['ms']) + ' ms' for p in d['probes'])")
worker_start=$(json "$out/build-report.json" "sorted(e['atMs'] for e in d['pool']['workerEvents'] if e['event'] == 'started')")
echo
echo "== archpool GPU acceptance: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
printf '%s\n' "${results[@]}"
echo "probes: $probe_ms"
echo "workers said hello at (ms after the pool started): $worker_start"
echo "quickstart at -j16, no --arch: $quickstart_s s wall"
exit $fail
