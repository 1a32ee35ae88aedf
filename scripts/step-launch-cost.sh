#!/bin/sh
# What containing a step costs: N runs of `true` started as archpool started a step before (setsid -w) and
# as it starts one now (PID namespace: setsid -w setpriv --pdeathsig KILL unshare ... /bin/sh REAPER),
# alternating in blocks of 10 so that both see the same load. Prints milliseconds per step and the ratio.
# Usage: scripts/step-launch-cost.sh [N]   (default 200; run as root, or where user namespaces are allowed)
set -eu
n=${1:-200}
reaper='exec 3>&2 2>/dev/null; (exec "$@" 2>&3 3>&-); exit $?'
user=
[ "$(id -u)" -eq 0 ] || user="--user --map-current-user"
old() { setsid -w true; }
new() {
    # shellcheck disable=SC2086
    setsid -w setpriv --pdeathsig KILL -- unshare $user --pid --fork --kill-child --mount-proc \
        --propagation slave -- /bin/sh -c "$reaper" archpool-step true
}
now() { date +%s%N; }
old_ns=0
new_ns=0
i=0
while [ "$i" -lt "$n" ]; do
    t=$(now); for _ in 1 2 3 4 5 6 7 8 9 10; do old; done; old_ns=$((old_ns + $(now) - t))
    t=$(now); for _ in 1 2 3 4 5 6 7 8 9 10; do new; done; new_ns=$((new_ns + $(now) - t))
    i=$((i + 10))
done
awk -v o="$old_ns" -v w="$new_ns" -v n="$i" 'BEGIN {
    printf "%d steps each: setsid %.2f ms/step, pid namespace %.2f ms/step, ratio %.2f, %.2f ms more per step\n",
        n, o / n / 1e6, w / n / 1e6, w / o, (w - o) / n / 1e6 }'
