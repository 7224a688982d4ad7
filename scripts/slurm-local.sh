#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slurm-local.sh start|stop|status - a single-node Slurm on this machine, for emp-run --executor=slurm and its CI
# test (tests/integration/emp_run_slurm.sh).  As root: `start` installs Debian's slurm-wlm and munge when missing
# (apt-get), creates the munge key, writes /etc/slurm/slurm.conf for this host (NodeName=$(hostname)
# CPUs=$(nproc), one partition "emp", no accounting, no cgroups) and starts munged, slurmctld and slurmd without
# systemd; it returns once the node accepts jobs.  `stop` stops the three daemons it started.  A slurm.conf that
# this script did not write is never replaced.
set -euo pipefail
CONF=/etc/slurm/slurm.conf
MARK="# written by emp scripts/slurm-local.sh"
LOGS=/var/log/slurm
die() { echo "slurm-local: $*" >&2; exit 1; }

start() {
	[[ $(id -u) == 0 ]] || die "start needs root (apt-get, daemons)"
	if ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null ||
			{ apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y \
				--no-install-recommends slurm-wlm munge >/dev/null; } || die "apt-get install slurm-wlm munge failed"
	fi
	# munge: a key, then the daemon as the munge user
	mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
	[[ -s /etc/munge/munge.key ]] || mungekey --create --keyfile=/etc/munge/munge.key
	chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
	chmod 0700 /etc/munge
	chmod 0400 /etc/munge/munge.key
	if ! pgrep -x munged >/dev/null; then
		runuser -u munge -- /usr/sbin/munged || die "munged did not start (see /var/log/munge/munged.log)"
	fi
	munge -n | unmunge >/dev/null || die "munge does not work (see /var/log/munge/munged.log)"
	# slurm.conf for this host
	local host cpus
	host=$(hostname -s)
	cpus=$(nproc)
	if [[ -e $CONF ]] && ! grep -qF "$MARK" "$CONF"; then
		die "$CONF exists and was not written by this script; not replacing it"
	fi
	mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd "$LOGS"
	cat >"$CONF" <<CONF
$MARK for $host
ClusterName=emp
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MaxArraySize=100001
MinJobAge=300
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=emp Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	pgrep -x slurmctld >/dev/null || slurmctld || die "slurmctld did not start (see $LOGS/slurmctld.log)"
	pgrep -x slurmd >/dev/null || slurmd || die "slurmd did not start (see $LOGS/slurmd.log)"
	local state=""
	for ((i = 0; i < 60; i++)); do
		state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
		case $state in
		idle* | mixed* | allocated*) echo "slurm-local: node $host ($cpus CPUs) $state, partition emp"; return 0 ;;
		down* | drain*) scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
		esac
		sleep 1
	done
	die "node $host not ready after 60 s (state '${state}'; see $LOGS/)"
}

stop() {
	local f
	for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
		[[ -s $f ]] || continue
		kill "$(cat "$f")" 2>/dev/null || true
	done
	# the job steps' slurmstepd too: none may outlive the stop and signal processes after it
	for ((i = 0; i < 50; i++)); do
		pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || pgrep -x slurmstepd >/dev/null || break
		sleep 0.2
	done
	echo "slurm-local: stopped"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) echo "usage: scripts/slurm-local.sh start|stop" >&2; exit 2 ;;
esac
