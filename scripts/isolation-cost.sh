#!/bin/sh
# What device isolation (--isolate-devices) adds: N starts of `true` each way, alternating in blocks of 10 so
# that both see the same load, with the command lines archpool uses (DeviceNamespace, PidNamespaceContainment
# with a DeviceMask):
#   worker start: `true` against `unshare [--user --map-root-user] --mount --propagation slave -- /bin/sh -c
#                 'MASKS exec [unshare --user --map-user=UID --map-group=GID --] "$@"' archpool-isolated true`
#                 (the JVM is started by the same exec, so this is all it adds to a worker's start), MASKS
#                 being one `mount -a -T FSTAB` over the table archpool wrote (local workers) or over one the
#                 shell writes with mktemp, then removes (Slurm nodes, steps);
#   step:         the step wrapper without masks against the one that masks /proc/driver/nvidia again after
#                 --mount-proc (as another user also mapping root, then the user again).
# The masks cover what exists here of /dev/nvidia*, /dev/kfd, /dev/dri, /proc/driver/nvidia, /sys/class/kfd and
# /sys/devices/virtual/kfd; run it under integration-tests/src/test/resources/gpu-stand-ins.sh to time nine masks.
# Usage: scripts/isolation-cost.sh [N]   (default 200; as root, or where user namespaces are allowed)
set -eu
n=${1:-200}
uid=$(id -u)
gid=$(id -g)
reaper='exec 3>&2 2>/dev/null; (exec "$@" 2>&3 3>&-); exit $?'
masks() { # DeviceMask.commands(): the shell lists what exists in an fstab for one mount -a
    printf '%s' "t=; for p in $1; do if [ -d \"\$p\" ]; then t=\"\${t}archpool-masked \$p tmpfs"
    printf '%s' " ro,nodev,nosuid,noexec,size=4k,mode=555 0 0
\"; elif [ -e \"\$p\" ]; then t=\"\${t}\$p \$p none bind,ro,nodev 0 0
\"; fi; done; if [ -n \"\$t\" ]; then f=\$(mktemp \"\${TMPDIR:-/tmp}/.archpool-masks.XXXXXX\") || exit 125;"
    printf '%s' " printf '%s' \"\$t\" > \"\$f\" || exit 125; mount -a -T \"\$f\"; s=\$?; rm -f \"\$f\";"
    printf '%s' " [ \"\$s\" -eq 0 ] || exit 125; fi; "
}
all=$(masks '/dev/nvidia* /dev/kfd /dev/dri /proc/driver/nvidia /sys/class/kfd /sys/devices/virtual/kfd')
p=/proc/driver/nvidia # one path: mounted directly
proc="if [ -d $p ]; then mount -t tmpfs -o ro,nodev,nosuid,noexec,size=4k,mode=555 archpool-masked $p || exit 125; fi; "
if [ "$uid" -eq 0 ]; then
    ns_user=
    remap=
    step_user=
    step_masked_user=
else
    ns_user="--user --map-root-user"
    remap="unshare --user --map-user=$uid --map-group=$gid --"
    step_user="--user --map-current-user"
    step_masked_user="--user --map-root-user"
    all=$(masks '/dev/nvidia* /dev/kfd /dev/dri /sys/class/kfd /sys/devices/virtual/kfd')
fi
fstab=$(mktemp)
trap 'rm -f "$fstab"' EXIT
for p in /dev/nvidia* /dev/kfd /dev/dri /proc/driver/nvidia /sys/class/kfd /sys/devices/virtual/kfd; do
    if [ "$uid" -ne 0 ] && [ "$p" = /proc/driver/nvidia ]; then continue; fi
    if [ -d "$p" ]; then echo "archpool-masked $p tmpfs ro,nodev,nosuid,noexec,size=4k,mode=555 0 0"
    elif [ -e "$p" ]; then echo "$p $p none bind,ro,nodev 0 0"; fi
done > "$fstab"
bare_worker() { /bin/true; }
listed_worker() { # what a local worker runs: the masks listed in workers/device-masks.fstab, one mount -a
    # shellcheck disable=SC2086
    [ -s "$fstab" ] && listed="mount -a -T $fstab || exit 125; " || listed="$all" # none present: archpool keeps the loop
    unshare $ns_user --mount --propagation slave -- /bin/sh -c "${listed}exec $remap \"\$@\"" \
        archpool-isolated /bin/true
}
isolated_worker() {
    # shellcheck disable=SC2086
    unshare $ns_user --mount --propagation slave -- /bin/sh -c "${all}exec $remap \"\$@\"" archpool-isolated /bin/true
}
step() {
    # shellcheck disable=SC2086
    setsid -w setpriv --pdeathsig KILL -- unshare $step_user --pid --fork --kill-child --mount-proc \
        --propagation slave -- /bin/sh -c "$reaper" archpool-step true
}
masked_step() {
    if [ -z "$remap" ]; then first="$proc$reaper"; else first="${proc}exec $remap /bin/sh -c '$reaper' \"\$0\" \"\$@\""; fi
    # shellcheck disable=SC2086
    setsid -w setpriv --pdeathsig KILL -- unshare $step_masked_user --pid --fork --kill-child --mount-proc \
        --propagation slave -- /bin/sh -c "$first" archpool-step true
}
now() { date +%s%N; }
time_pair() { # $1 $2: functions; prints "ms_a ms_b"
    a=0; b=0; i=0
    while [ "$i" -lt "$n" ]; do
        t=$(now); for _ in 1 2 3 4 5 6 7 8 9 10; do "$1"; done; a=$((a + $(now) - t))
        t=$(now); for _ in 1 2 3 4 5 6 7 8 9 10; do "$2"; done; b=$((b + $(now) - t))
        i=$((i + 10))
    done
    awk -v a="$a" -v b="$b" -v n="$i" 'BEGIN { printf "%.2f %.2f %.2f", a / n / 1e6, b / n / 1e6, (b - a) / n / 1e6 }'
}
masked=$(for p in /dev/nvidia* /dev/kfd /dev/dri /proc/driver/nvidia /sys/class/kfd /sys/devices/virtual/kfd; do
    [ -e "$p" ] && echo "$p"; done | wc -l)
set -- $(time_pair bare_worker listed_worker)
echo "$n starts each, uid $uid, $masked paths masked: worker start $1 ms bare, $2 ms isolated (one mount -a): $3 ms more"
set -- $(time_pair bare_worker isolated_worker)
echo "$n starts each, uid $uid, $masked paths masked: worker start $1 ms bare, $2 ms isolated (the shell lists them: Slurm nodes, thread-mode steps): $3 ms more"
if step 2>/dev/null && masked_step 2>/dev/null; then
    set -- $(time_pair step masked_step)
    echo "$n steps each, uid $uid: step $1 ms, with /proc masked again $2 ms: $3 ms more"
else
    echo "steps: no PID namespace starts here for uid $uid (a /proc partly covered by a mount), nothing to time"
fi
