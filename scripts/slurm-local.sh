#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the tests of --launcher slurm (and for trying it out):
# munged, slurmctld and slurmd started by hand (no systemd), every file under one folder.
#
#   scripts/slurm-local.sh start          start the daemons; wait until the node takes jobs
#   scripts/slurm-local.sh stop           stop them (jobs still running are killed with slurmd)
#   scripts/slurm-local.sh stop-slurmd    stop only the node's slurmd (a fault the tests inject)
#   scripts/slurm-local.sh start-slurmd   start it again, clear the jobs its absence left stuck completing (the
#                                         node is set down and resumed: this kills what runs on it), wait until
#                                         the node takes jobs
#
# The node has one pretend GPU (generic resource gpu:1 backed by /dev/null), so that tests can give a step a
# GPU and see what Slurm then does to its environment.
#
# The folder is $ARCHPOOL_SLURM_DIR, else the folder of $SLURM_CONF, else /tmp/archpool-slurm. Clients find
# the cluster with: export SLURM_CONF=<folder>/slurm.conf (start prints it). Needs root (or sudo) and Debian's
# slurmctld, slurmd, slurm-client and munge (scripts/setup-debian.sh --slurm).
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|stop-slurmd|start-slurmd" >&2
  exit 2
}
[ $# -eq 1 ] || usage

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

write_conf() {
  # a fresh cluster: no jobs recovered from an earlier run's saved state
  $sudo rm -rf "$dir/state" "$dir/spool"
  mkdir -p "$dir/state" "$dir/spool"
  cat > "$SLURM_CONF" <<CONF
$marker
ClusterName=archpool-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  # one pretend GPU, so that a step can be given a GPU as on a real GPU node (Slurm then sets the task's
  # CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES); no program is meant to open it
  cat > "$dir/gres.conf" <<CONF
AutoDetect=off
NodeName=localhost Name=gpu File=/dev/null
CONF
}

# Waits until the node is idle or allocated (it takes jobs), at most 30 s.
wait_ready() {
  for _ in $(seq 150); do
    state="$(sinfo --noheader --format=%T 2>/dev/null || true)"
    # exactly these: a trailing '*' means slurmctld does not hear from the node's slurmd (yet)
    case "$state" in
      idle|mixed|allocated|completing|planned) return 0 ;;
    esac
    sleep 0.2
  done
  say "the node did not come up within 30 s (sinfo says '${state:-nothing}'); see $dir/slurmctld.log and $dir/slurmd.log"
  exit 1
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

start_slurmd() {
  $sudo env SLURM_CONF="$SLURM_CONF" slurmd -N localhost
  wait_ready
}

case "$1" in
  start)
    for tool in munged slurmctld slurmd sinfo srun; do
      command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || {
        say "$tool not found: install Slurm with scripts/setup-debian.sh --slurm"; exit 1; }
    done
    if ! pgrep -x munged >/dev/null 2>&1; then
      $sudo mkdir -p /run/munge
      $sudo chown munge:munge /run/munge
      if [ ! -f /etc/munge/munge.key ]; then
        $sudo runuser -u munge -- mungekey --create
      fi
      $sudo runuser -u munge -- /usr/sbin/munged
    fi
    stop_pid "$dir/slurmctld.pid"
    stop_pid "$dir/slurmd.pid"
    write_conf
    for daemon in slurmctld slurmd; do
      pid="$(ps -C "$daemon" -o pid=,stat= | awk '$2 !~ /^Z/ {print $1; exit}' || true)"
      if [ -n "$pid" ]; then
        say "another $daemon is running (pid $pid), not started by this script from $dir; stop it first"
        exit 1
      fi
    done
    $sudo env SLURM_CONF="$SLURM_CONF" slurmctld
    start_slurmd
    say "a one-node cluster is up; for its clients: export SLURM_CONF=$SLURM_CONF"
    ;;
  stop)
    scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    stop_pid "$dir/slurmd.pid"
    stop_pid "$dir/slurmctld.pid"
    # slurmstepd processes of jobs still running outlive slurmd: end them too
    $sudo pkill -f '^slurmstepd: \[' 2>/dev/null || true
    say "stopped"
    ;;
  stop-slurmd)
    stop_pid "$dir/slurmd.pid"
    ;;
  start-slurmd)
    start_slurmd
    # a job that started while slurmd was away stays "completing" until slurmctld resends its end, a minute or
    # two later; setting the node down and resuming it ends such jobs now
    scontrol update NodeName=localhost State=DOWN Reason=slurmd-restarted
    scontrol update NodeName=localhost State=RESUME
    wait_ready
    ;;
  *) usage ;;
esac
