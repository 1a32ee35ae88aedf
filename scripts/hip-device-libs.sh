#!/usr/bin/env bash
# Makes the ROCm device-library folder that clang++-19 needs to build HIP code for gfx90a, gfx942 and gfx1100 with
# Debian's ROCm 5.2 bitcode, and prints its path.
#
# Why: Debian's device libraries (rocm-device-libs, /usr/lib/x86_64-linux-gnu/amdgcn/bitcode) predate gfx942 and
# gfx1100, so they lack oclc_isa_version_942.bc and oclc_isa_version_1100.bc, and clang++-19 refuses those targets
# ("cannot find ROCm device library for gfx942"). Debian's hipcc (clang 15) does not know gfx942 at all. The folder
# holds a symlink to every Debian *.bc file plus those two ISA version files, each assembled with llvm-as-19 from the
# gfx90a one with its __oclc_ISA_version number changed (9402, 11000). Use it as
#   clang++-19 -x hip --offload-arch=gfx942 --rocm-path=/usr --rocm-device-lib-path=<folder> ...
# or, for CMake's HIP language (clang++-19 reads the variable), HIP_DEVICE_LIB_PATH=<folder> (docs/hip.md).
#
#   scripts/hip-device-libs.sh          the folder is ${TMPDIR:-/tmp}/archpool-hip-device-libs
#   scripts/hip-device-libs.sh DIR      the folder is DIR
#
# Idempotent: a complete folder is left as it is; the folder is built beside its final path and renamed into place,
# so concurrent callers never see a half-made one. Needs rocm-device-libs and llvm-19 (scripts/setup-debian.sh --hip).
set -euo pipefail

dir="${1:-${TMPDIR:-/tmp}/archpool-hip-device-libs}"
debian=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
# the ISA versions Debian's ROCm 5.2 lacks, as processor suffix and __oclc_ISA_version number
missing=("942 9402" "1100 11000")

complete() {
  [ -f "$1/.complete" ] || return 1
  local m
  for m in "${missing[@]}"; do
    [ -s "$1/oclc_isa_version_${m%% *}.bc" ] || return 1
  done
}

if complete "$dir"; then
  echo "$dir"
  exit 0
fi

if [ ! -f "$debian/oclc_isa_version_90a.bc" ]; then
  echo "hip-device-libs: $debian/oclc_isa_version_90a.bc not found: install rocm-device-libs" >&2
  exit 1
fi
tool() {
  if command -v "$1-19" >/dev/null 2>&1; then
    command -v "$1-19"
  elif [ -x "/usr/lib/llvm-19/bin/$1" ]; then
    echo "/usr/lib/llvm-19/bin/$1"
  else
    echo "hip-device-libs: $1-19 not found: install llvm-19" >&2
    exit 1
  fi
}
as="$(tool llvm-as)"
dis="$(tool llvm-dis)"

parent="$(dirname "$dir")"
mkdir -p "$parent"
work="$(mktemp -d "$parent/.archpool-hip-device-libs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for bc in "$debian"/*.bc; do
  ln -s "$bc" "$work/$(basename "$bc")"
done
template="$("$dis" "$debian/oclc_isa_version_90a.bc" -o -)"
if ! grep -q 'constant i32 9010,' <<<"$template"; then
  echo "hip-device-libs: unexpected contents of $debian/oclc_isa_version_90a.bc:" >&2
  echo "$template" >&2
  exit 1
fi
for m in "${missing[@]}"; do
  suffix="${m%% *}"
  version="${m##* }"
  [ -e "$work/oclc_isa_version_$suffix.bc" ] && continue  # a newer Debian may ship it
  sed "s/constant i32 9010,/constant i32 $version,/" <<<"$template" >"$work/isa_$suffix.ll"
  "$as" "$work/isa_$suffix.ll" -o "$work/oclc_isa_version_$suffix.bc"
  rm "$work/isa_$suffix.ll"
done
touch "$work/.complete"
chmod 755 "$work"

# into place: replace an incomplete folder; if another caller got there first with a complete one, keep theirs
if [ -e "$dir" ] && ! complete "$dir"; then
  rm -rf "$dir"
fi
if ! mv -T "$work" "$dir" 2>/dev/null; then
  complete "$dir" || { echo "hip-device-libs: could not create $dir" >&2; exit 1; }
fi
echo "$dir"
