#!/usr/bin/env bash
# A one-node SLURM cluster on this machine for `nox -s slurm` (needs root and Debian's slurm-wlm):
#   tools/one_node_slurm.sh start DIR   # writes DIR/slurm.conf, starts munged, slurmctld, slurmd
#   tools/one_node_slurm.sh stop DIR    # stops the daemons started in DIR (by their pid files)
# Then use it with SLURM_CONF=DIR/slurm.conf (sbatch, squeue, sinfo, submitit). No accounting
# database: `sacct` answers "accounting storage is disabled" and submitit warns it guesses states.
set -euo pipefail
action=${1:?start or stop}
dir=$(realpath -m "${2:?state folder}")
conf=$dir/slurm.conf

stop() {
    for pid_file in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
        [[ -s $pid_file ]] && kill "$(cat "$pid_file")" 2>/dev/null || true
        rm -f "$pid_file"
    done
}

if [[ $action == stop ]]; then stop; exit 0; fi
[[ $action == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
host=$(hostname -s)
cat > "$conf" <<CONF
ClusterName=sanbench
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# munged: its own socket folder when the system one is not running
if ! munge -n >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge "$dir/munge"
    runuser -u munge -- /usr/sbin/munged --pid-file="$dir/munge/munged.pid" --force
    cp "$dir/munge/munged.pid" "$dir/munged.pid"
fi
SLURM_CONF=$conf /usr/sbin/slurmctld -f "$conf"
SLURM_CONF=$conf /usr/sbin/slurmd -f "$conf"
for _ in $(seq 30); do
    if SLURM_CONF=$conf sinfo -h -o %T 2>/dev/null | grep -q idle; then
        echo "one-node SLURM up: export SLURM_CONF=$conf"
        exit 0
    fi
    sleep 1
done
echo "slurmd did not become idle; logs: $dir/slurmctld.log $dir/slurmd.log" >&2
stop
exit 1
