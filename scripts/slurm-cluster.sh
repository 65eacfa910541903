#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the Slurm test (and for trying the recipes by hand):
#   scripts/slurm-cluster.sh up STATE_DIR     start munged (if not running), slurmctld and slurmd; wait for the node
#   scripts/slurm-cluster.sh down STATE_DIR   stop exactly the daemons `up` started and remove STATE_DIR
# After `up`, export SLURM_CONF=STATE_DIR/slurm.conf for sbatch, squeue and sinfo.
# Exit 2, with the reason on stderr, when Slurm cannot run here (not installed, not root): callers skip.
set -euo pipefail
cmd=${1:-}; state=${2:-}
[ -n "$cmd" ] && [ -n "$state" ] || { echo "usage: $0 up|down STATE_DIR" >&2; exit 64; }

marker=.handpose-slurm-cluster
down() {
  # Only a folder `up` made: it holds the marker. Jobs still running on this cluster are cancelled first,
  # then each daemon from its pid file, if that process still is that daemon.
  [ -f "$state/$marker" ] || { echo "slurm-cluster: $state was not made by '$0 up'; nothing done" >&2; return 0; }
  if [ -f "$state/slurm.conf" ] && [ -f "$state/slurmctld.pid" ]; then
    SLURM_CONF="$state/slurm.conf" scancel --quiet --full --user="$(id -un)" 2>/dev/null || true
    sleep 1
  fi
  for name in slurmd slurmctld munged; do
    [ -f "$state/$name.pid" ] || continue
    pid=$(cat "$state/$name.pid")
    [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$name" ] || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$name" ] && kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$state"
}

if [ "$cmd" = down ]; then down; exit 0; fi
[ "$cmd" = up ] || { echo "usage: $0 up|down STATE_DIR" >&2; exit 64; }

# Exit 2: this machine cannot run the daemons (not root, they do not start); exit 3: make setup has not installed them.
skip() { echo "slurm-cluster: $*" >&2; exit 2; }
missing() { echo "slurm-cluster: $*" >&2; exit 3; }
[ "$(id -u)" -eq 0 ] || skip "Slurm's daemons need root here (this is uid $(id -u))"
for b in munged slurmctld slurmd sbatch sinfo; do
  command -v "$b" >/dev/null || missing "$b is not installed (make setup installs slurm-wlm and munge)"
done

if [ -e "$state" ] && [ -n "$(ls -A "$state" 2>/dev/null)" ]; then
  echo "slurm-cluster: $state exists and is not empty; give a new folder" >&2; exit 64
fi
mkdir -p "$state"/{spool,ctld,log}
state=$(cd "$state" && pwd)
touch "$state/$marker"
# munge: a key once per machine, then the daemon unless one already runs.
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge && dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 0400 /etc/munge/munge.key
fi
if ! munge -n >/dev/null 2>&1; then
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  rm -f /run/munge/munged.pid
  if id munge >/dev/null 2>&1; then
    su -s /bin/sh munge -c munged </dev/null >/dev/null 2>"$state/log/munged.err" || skip "munged did not start: $(cat "$state/log/munged.err")"
  else
    munged --force </dev/null >/dev/null 2>"$state/log/munged.err" || skip "munged did not start: $(cat "$state/log/munged.err")"
  fi
  for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
  # Remembered so `down` stops the munged this script started, and no other.
  cp /run/munge/munged.pid "$state/munged.pid" 2>/dev/null || true
  munge -n >/dev/null 2>&1 || { down; skip "munge does not answer"; }
fi

host=$(hostname -s)
port=$((20000 + ($$ % 20000) * 2))
node=$(slurmd -C | head -1)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node")
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
cat > "$state/slurm.conf" <<CONF
ClusterName=handpose-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MaxArraySize=10001
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$state/slurm.conf
slurmctld -f "$SLURM_CONF" -i </dev/null >/dev/null 2>"$state/log/slurmctld.err" || { cat "$state/log/slurmctld.err" >&2; down; skip "slurmctld did not start"; }
slurmd -f "$SLURM_CONF" </dev/null >/dev/null 2>"$state/log/slurmd.err" || { cat "$state/log/slurmd.err" >&2; down; skip "slurmd did not start"; }
for _ in $(seq 180); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "slurm-cluster: up: node $host ($cpus CPUs, $memory MB); export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "slurm-cluster: the node did not come up in 90 s; logs:" >&2
tail -20 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
down
exit 1
