#!/usr/bin/env bash
# A real Slurm cluster on this machine, for the tests of --launcher slurm (and for trying it out): munged,
# slurmctld and slurmd started by hand (no systemd), every file under one folder.
#
#   scripts/slurm-local.sh start [--nodes N]   start the daemons; wait until every node takes jobs
#   scripts/slurm-local.sh stop                stop them, and remove every namespace and link start made (also
#                                              after a start that failed half way)
#   scripts/slurm-local.sh status              print each node's name, address and state
#
# One node (the default): slurmctld and one slurmd, node "localhost" at 127.0.0.1, as before. Then:
#   scripts/slurm-local.sh stop-slurmd    stop only the node's slurmd (a fault the tests inject)
#   scripts/slurm-local.sh start-slurmd   start it again, clear the jobs its absence left stuck completing (the
#                                         node is set down and resumed: this kills what runs on it), wait until
#                                         the node takes jobs
#
# Several nodes (--nodes N, 2 to 16): the controller and nodes node1..nodeN each run in a network namespace, a
# UTS namespace (so each has its own host name) and a mount namespace of their own, joined by veth pairs to a bridge. The bridge has
# the address .1 of a private /24 that exists only on this machine, and is how this machine's shells (srun,
# archpool) reach the cluster; the controller is .2, node K is .(10+K). Each node's default route points at the
# bridge, so its steps reach back to srun; nothing is forwarded beyond this machine. Munge is shared. Every node
# has the same CPUs (ARCHPOOL_SLURM_NODE_CPUS, default this machine's). SlurmdTimeout is 6 s, so a lost node is
# set DOWN within seconds. Then:
#   scripts/slurm-local.sh kill-node NAME    a node is lost: its link goes down (no goodbye reaches anyone), and
#                                            every process in its namespace (slurmd, slurmstepd, the steps) is
#                                            killed with SIGKILL
#   scripts/slurm-local.sh start-node NAME   it comes back: link up, slurmd started, the node resumed; waits until
#                                            it takes jobs
#
# Each node has one pretend GPU (generic resource gpu:1 backed by /dev/null), so that tests can give a step a
# GPU and see what Slurm then does to its environment.
#
# The folder is $ARCHPOOL_SLURM_DIR, else the folder of $SLURM_CONF, else /tmp/archpool-slurm. Clients find
# the cluster with: export SLURM_CONF=<folder>/slurm.conf (start prints it). Two clusters in two folders can run
# at once if at most one of them has a single node. Needs root (or sudo), iproute2, util-linux, and Debian's
# slurmctld, slurmd, slurm-client and munge (scripts/setup-debian.sh --slurm).
set -euo pipefail

usage() {
  echo "usage: $0 start [--nodes N] | stop | status | stop-slurmd | start-slurmd | kill-node NAME | start-node NAME" >&2
  exit 2
}
[ $# -ge 1 ] || usage
action="$1"
shift

if [ -n "${ARCHPOOL_SLURM_DIR:-}" ]; then
  dir="$ARCHPOOL_SLURM_DIR"
elif [ -n "${SLURM_CONF:-}" ]; then
  dir="$(dirname "$SLURM_CONF")"
else
  dir=/tmp/archpool-slurm
fi
export SLURM_CONF="$dir/slurm.conf"
marker="# written by archpool's scripts/slurm-local.sh"
if [ -f "$SLURM_CONF" ] && [ "$(head -1 "$SLURM_CONF")" != "$marker" ]; then
  echo "slurm-local: $SLURM_CONF was not written by this script; it manages only its own cluster: set ARCHPOOL_SLURM_DIR to a folder of its own" >&2
  exit 2
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

say() { echo "slurm-local: $*" >&2; }

# Names and addresses of a cluster of several nodes, unique to its folder: a 4-hex-digit id from the folder's
# path names its namespaces (ap<id>-ctl, ap<id>-node1…), its bridge (ap<id>br) and the host ends of its veth
# pairs (ap<id>c, ap<id>n1…), and picks its /24 in 10.211.0.0/16.
id="$(printf '%s' "$(realpath -m "$dir")" | sha256sum | cut -c1-4)"
prefix="ap$id"
bridge="${prefix}br"
subnet="10.211.$((16#${id:0:2}))"
bridge_addr="$subnet.1"
ctl_addr="$subnet.2"
node_addr() { echo "$subnet.$((10 + ${1#node}))"; }
netns_of() { echo "$prefix-$1"; }           # ctl, node1, node2…
host_link_of() { [ "$1" = ctl ] && echo "${prefix}c" || echo "${prefix}n${1#node}"; }

# the node count of the cluster in this folder: written by start, read by every other action
count_file="$dir/nodes"
node_count() { [ -f "$count_file" ] && cat "$count_file" || echo 1; }
node_names() { local n; n="$(node_count)"; [ "$n" -eq 1 ] && echo localhost || seq -f 'node%g' 1 "$n"; }

write_conf() {
  local nodes="$1"
  # a fresh cluster: no jobs recovered from an earlier run's saved state
  $sudo rm -rf "$dir/state" "$dir"/spool "$dir"/spool.*
  mkdir -p "$dir/state" "$dir/spool"
  local host cpus nodelist per_node
  if [ "$nodes" -eq 1 ]; then
    host="localhost"
    cpus="$(nproc)"
    nodelist="localhost"
    per_node=""
  else
    host="controller($ctl_addr)"
    cpus="${ARCHPOOL_SLURM_NODE_CPUS:-$(nproc)}"
    nodelist="node[1-$nodes]"
    per_node=".%n" # slurmd's files, one per node
  fi
  {
    echo "$marker"
    cat <<CONF
ClusterName=archpool-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool$per_node
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd$per_node.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd$per_node.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
GresTypes=gpu
CONF
    if [ "$nodes" -eq 1 ]; then
      echo "NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus Gres=gpu:1 State=UNKNOWN"
    else
      # a lost node is noticed within seconds (the default is 300 s); the nodes' CPUs are what this file says,
      # not what each namespace's slurmd finds (they all see the same machine)
      cat <<CONF
SlurmdTimeout=6
MessageTimeout=5
SlurmdParameters=config_overrides
CONF
      for k in $(seq 1 "$nodes"); do
        echo "NodeName=node$k NodeAddr=$(node_addr "node$k") NodeHostname=node$k CPUs=$cpus Gres=gpu:1 State=UNKNOWN"
      done
    fi
    echo "PartitionName=debug Nodes=$nodelist Default=YES MaxTime=INFINITE State=UP"
  } > "$SLURM_CONF"
  # one pretend GPU per node, so that a step can be given a GPU as on a real GPU node (Slurm then sets the
  # task's CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES); no program is meant to open it
  {
    echo "AutoDetect=off"
    echo "NodeName=$nodelist Name=gpu File=/dev/null"
  } > "$dir/gres.conf"
  echo "$nodes" > "$count_file"
}

# The state sinfo gives node NAME, with a trailing '*' when slurmctld does not hear from its slurmd.
node_state() { sinfo --noheader --nodes="$1" --format=%T 2>/dev/null | head -1 || true; }

# Waits until each named node is idle or allocated (it takes jobs), at most 30 s.
wait_ready() {
  local state=""
  for node in "$@"; do
    for _ in $(seq 150); do
      state="$(node_state "$node")"
      # exactly these: a trailing '*' means slurmctld does not hear from the node's slurmd (yet)
      case "$state" in
        idle|mixed|allocated|completing|planned) continue 2 ;;
      esac
      sleep 0.2
    done
    say "node $node did not come up within 30 s (sinfo says '${state:-nothing}'); see $dir/slurmctld.log and $dir/slurmd*.log"
    if [ "$node" != localhost ] && [ "$(sysctl -n net.bridge.bridge-nf-call-iptables 2>/dev/null || echo 0)" = 1 ]; then
      say "this machine passes bridged traffic through its firewall (net.bridge.bridge-nf-call-iptables=1); if its FORWARD chain drops it, allow the cluster's bridge: iptables -I FORWARD -i $bridge -o $bridge -j ACCEPT"
    fi
    exit 1
  done
}

stop_pid() {
  local pidfile="$1"
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    $sudo kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && $sudo kill -9 "$pid" 2>/dev/null || true
  fi
  $sudo rm -f "$pidfile"
}

# Runs a command in the network namespace of ctl or nodeK, in a UTS namespace of its own named after it, and in a
# mount namespace of its own that sees this machine's mounts (so a test can make a folder look different on one
# node: nsenter --target "$(cat <dir>/slurmd.nodeK.pid)" --mount mount --bind …).
in_namespace() {
  local who="$1"
  shift
  local hostname="$who"
  [ "$who" = ctl ] && hostname=controller
  # nsenter, not ip netns exec: that also remounts /sys, without the cgroup file system slurmd needs
  $sudo nsenter --net="/run/netns/$(netns_of "$who")" unshare --uts --mount --propagation slave \
    sh -c 'hostname "$0" && exec "$@"' "$hostname" "$@"
}

# Makes the network namespace of ctl or nodeK, its veth pair on the bridge and its address.
make_namespace() {
  local who="$1" addr="$2"
  local ns link
  ns="$(netns_of "$who")"
  link="$(host_link_of "$who")"
  $sudo ip netns add "$ns"
  $sudo ip link add "$link" type veth peer name eth0 netns "$ns"
  $sudo ip link set "$link" master "$bridge" up
  $sudo ip -n "$ns" link set lo up
  $sudo ip -n "$ns" addr add "$addr/24" dev eth0
  $sudo ip -n "$ns" link set eth0 up
  $sudo ip -n "$ns" route add default via "$bridge_addr"
}

# Kills every process in a namespace (they are also this machine's processes: ip netns pids finds them).
kill_namespace() {
  local ns="$1"
  ip netns list 2>/dev/null | grep -qx "$ns\( (id: [0-9]*)\)\?" || return 0
  for _ in 1 2 3; do
    local pids
    pids="$($sudo ip netns pids "$ns" 2>/dev/null || true)"
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    $sudo kill -9 $pids 2>/dev/null || true
    sleep 0.2
  done
}

start_slurmd_localhost() {
  $sudo env SLURM_CONF="$SLURM_CONF" slurmd -N localhost
  wait_ready localhost
}

start_slurmd_node() {
  local node="$1"
  mkdir -p "$dir/spool.$node"
  in_namespace "$node" env SLURM_CONF="$SLURM_CONF" slurmd -N "$node"
}

# A daemon of this kind already running in this machine's own network namespace (not one of a cluster of
# several nodes, which run in namespaces of their own).
running_here() {
  local daemon="$1" mine pid
  mine="$(readlink /proc/self/ns/net)"
  for pid in $(ps -C "$daemon" -o pid=,stat= | awk '$2 !~ /^Z/ {print $1}'); do
    if [ "$($sudo readlink "/proc/$pid/ns/net" 2>/dev/null || true)" = "$mine" ]; then
      echo "$pid"
      return 0
    fi
  done
  return 0
}

start_munge() {
  if ! pgrep -x munged >/dev/null 2>&1; then
    $sudo mkdir -p /run/munge
    $sudo chown munge:munge /run/munge
    if [ ! -f /etc/munge/munge.key ]; then
      $sudo runuser -u munge -- mungekey --create
    fi
    $sudo runuser -u munge -- /usr/sbin/munged
  fi
}

# Stops the cluster in this folder and removes what a cluster of several nodes made: processes in its
# namespaces, the namespaces, the host ends of the veth pairs and the bridge. Safe to run twice, and after a
# start that failed half way.
stop_all() {
  if [ -f "$SLURM_CONF" ]; then
    timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmd.*.pid; do
    [ -e "$pidfile" ] && stop_pid "$pidfile"
  done
  stop_pid "$dir/slurmctld.pid"
  # namespaces of this folder's cluster, whatever its recorded node count (a start may have failed half way)
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix-" || true); do
    kill_namespace "$ns"
    $sudo ip netns delete "$ns" 2>/dev/null || true
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$prefix" || true); do
    $sudo ip link delete "$link" 2>/dev/null || true
  done
  if [ "$(node_count)" -eq 1 ]; then
    # slurmstepd processes of jobs still running outlive slurmd: end them too (those of this machine's own
    # network namespace; a cluster of several nodes' were ended with their namespaces)
    mine="$(readlink /proc/self/ns/net)"
    for pid in $(pgrep -f '^slurmstepd: \[' || true); do
      [ "$($sudo readlink "/proc/$pid/ns/net" 2>/dev/null || true)" = "$mine" ] && $sudo kill "$pid" 2>/dev/null || true
    done
  fi
  rm -f "$count_file"
}

start_cluster() {
  local nodes=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) [ $# -ge 2 ] || usage; nodes="$2"; shift 2 ;;
      --nodes=*) nodes="${1#--nodes=}"; shift ;;
      *) usage ;;
    esac
  done
  case "$nodes" in
    ''|*[!0-9]*) say "--nodes takes a number from 1 to 16, not '$nodes'"; exit 2 ;;
  esac
  if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 16 ]; then
    say "--nodes takes a number from 1 to 16, not '$nodes'"
    exit 2
  fi
  case "${ARCHPOOL_SLURM_NODE_CPUS:-1}" in
    ''|*[!0-9]*|0) say "ARCHPOOL_SLURM_NODE_CPUS is the CPUs of each node, a number from 1, not '${ARCHPOOL_SLURM_NODE_CPUS}'"; exit 2 ;;
  esac
  for tool in munged slurmctld slurmd sinfo srun; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || {
      say "$tool not found: install Slurm with scripts/setup-debian.sh --slurm"; exit 1; }
  done
  mkdir -p "$dir"
  stop_all
  if [ "$nodes" -gt 1 ]; then
    for tool in ip unshare nsenter; do
      command -v "$tool" >/dev/null 2>&1 || { say "$tool not found: a cluster of several nodes needs iproute2 and util-linux"; exit 1; }
    done
  else
    for daemon in slurmctld slurmd; do
      pid="$(running_here "$daemon")"
      if [ -n "$pid" ]; then
        say "another $daemon is running (pid $pid), not started by this script from $dir; stop it first"
        exit 1
      fi
    done
  fi
  start_munge
  write_conf "$nodes"
  if [ "$nodes" -eq 1 ]; then
    $sudo env SLURM_CONF="$SLURM_CONF" slurmctld
    start_slurmd_localhost
    say "a one-node cluster is up; for its clients: export SLURM_CONF=$SLURM_CONF"
    return
  fi
  # from here on, a failure removes what was made
  trap 'say "start failed; removing what it made"; stop_all' EXIT
  $sudo ip link add "$bridge" type bridge
  $sudo ip addr add "$bridge_addr/24" dev "$bridge"
  $sudo ip link set "$bridge" up
  make_namespace ctl "$ctl_addr"
  for k in $(seq 1 "$nodes"); do
    make_namespace "node$k" "$(node_addr "node$k")"
  done
  in_namespace ctl env SLURM_CONF="$SLURM_CONF" slurmctld
  for k in $(seq 1 "$nodes"); do
    start_slurmd_node "node$k"
  done
  # shellcheck disable=SC2046
  wait_ready $(node_names)
  trap - EXIT
  say "a cluster of $nodes nodes (node1..node$nodes, $subnet.0/24 on bridge $bridge) is up; for its clients: export SLURM_CONF=$SLURM_CONF"
}

need_node() {
  [ $# -eq 1 ] || usage
  local n
  n="$(node_count)"
  if [ ! -f "$count_file" ]; then
    say "$action works on a running cluster of several nodes (start --nodes N), and none runs in $dir"
    exit 2
  fi
  if [ "$n" -eq 1 ]; then
    say "$action works on a cluster of several nodes (start --nodes N); the one in $dir has one node"
    exit 2
  fi
  case "$1" in
    node[0-9]*) [ "${1#node}" -ge 1 ] && [ "${1#node}" -le "$n" ] && return 0 ;;
  esac
  say "no node '$1' in this cluster: its nodes are node1..node$n"
  exit 2
}

case "$action" in
  start) start_cluster "$@" ;;
  stop)
    [ $# -eq 0 ] || usage
    stop_all
    say "stopped"
    ;;
  status)
    [ $# -eq 0 ] || usage
    sinfo --noheader --Node --format='%N %T' 2>/dev/null | while read -r node state; do
      addr=127.0.0.1
      [ "$node" = localhost ] || addr="$(node_addr "$node")"
      echo "$node $addr $state"
    done
    ;;
  stop-slurmd)
    [ $# -eq 0 ] || usage
    stop_pid "$dir/slurmd.pid"
    ;;
  start-slurmd)
    [ $# -eq 0 ] || usage
    start_slurmd_localhost
    # a job that started while slurmd was away stays "completing" until slurmctld resends its end, a minute or
    # two later; setting the node down and resuming it ends such jobs now
    scontrol update NodeName=localhost State=DOWN Reason=slurmd-restarted
    scontrol update NodeName=localhost State=RESUME
    wait_ready localhost
    ;;
  kill-node)
    need_node "$@"
    # the link first, so that nothing the dying processes send (a FIN, a last message) reaches anyone: the node
    # is lost, as one whose power failed
    $sudo ip link set "$(host_link_of "$1")" down
    kill_namespace "$(netns_of "$1")"
    $sudo rm -f "$dir/slurmd.$1.pid"
    say "$1 is lost"
    ;;
  start-node)
    need_node "$@"
    kill_namespace "$(netns_of "$1")"
    $sudo ip link set "$(host_link_of "$1")" up
    start_slurmd_node "$1"
    # a node set DOWN while it was away returns by itself once its slurmd registers (ReturnToService=2);
    # resuming it also ends now the jobs its loss left completing
    for _ in $(seq 50); do
      case "$(node_state "$1")" in
        down*|drain*|fail*) scontrol update NodeName="$1" State=RESUME 2>/dev/null || true ;;
        idle|mixed|allocated|completing|planned) break ;;
      esac
      sleep 0.2
    done
    wait_ready "$1"
    ;;
  *) usage ;;
esac
