#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# emp_run_slurm.sh - emp-run --executor=slurm (issue 13 §3) on a real single-node Slurm (scripts/slurm-local.sh,
# Debian's slurm-wlm and munge; root only: it installs and starts daemons).
#
# 1. One 2-version x 2-mode experiment (pure= and sample mode at 1 ms; base, and new with --task-size 3000: every
#    task does three times the work), 4 VMs, under Slurm (a job array, %2 throttle) and under the local executor:
#    both directories hold the same files (DIR/slurm/, Slurm's own, and the lock aside), runs.csv the same runs
#    (index, mode, version, vm, attempt, exit), and compare gives the same verdicts, every one "slower" (4 VMs
#    against 4, all apart: p = 0.029 < --alpha 0.05).  The case is deterministic because both modes measure CPU
#    time (the run's process time; samples of a CPU clock), which triples, and the machine's load cannot move:
#    trace mode measures wall time, which other processes on a loaded 2-core machine stretch by 2x and more.
#    --min-pct 10 keeps the nodes that hold the work (the iteration, the tree, the two leaves, the task).
#    While the array runs, status shows tasks queued or running and resume refuses (exit 2).
# 2. A failing task (its jar does not exist yet): wait exits 1 and reports the task with its log; once the jar is
#    there, resume submits exactly the failed tasks and the experiment completes, both attempts in runs.csv.
set -uo pipefail
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
[[ $(id -u) == 0 ]] || { echo "emp_run_slurm: needs root (installs and starts a one-node Slurm), skipped"; exit 77; }
command -v "$JAVA" >/dev/null || { echo "emp_run_slurm: no java, skipped"; exit 77; }
JAVA=$(command -v "$JAVA")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$(readlink -f "$BUILD/emp-run")
EA=$(readlink -f "$BUILD/emp-analyze")
JAR=$(readlink -f "$BUILD/java-sut.jar")
T=$(mktemp -d /tmp/emp-run-slurm.XXXXXX)
started=0
cleanup() {
	((started)) && bash "$ROOT/scripts/slurm-local.sh" stop >/dev/null
	[[ ${KEEP:-0} == 1 ]] && echo "emp_run_slurm: keeping $T" || rm -rf "$T"
}
trap cleanup EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "     got:      $(head -c 800 <<<"$1")"; echo "     expected: $(head -c 800 <<<"$2")"; return 1; }; }

if ! sinfo -h >/dev/null 2>&1; then
	bash "$ROOT/scripts/slurm-local.sh" start || { echo "FAIL scripts/slurm-local.sh start"; exit 1; }
	started=1
fi

# 1 ---------------------------------------------------------------------------------------------------------
CT="$JAVA -cp $JAR emp.sut.CallTree --depth 2 --warmup 20 --iterations 300"
args=(--vms 4 --iteration emp.sut.CallTree.runIteration --mode pure= --mode 's1=mode=sample,interval=1ms'
	--version "base=$CT" --version "new=$CT --task-size 3000" --parallel 2)
"$RUN" --out "$T/slurm" "${args[@]}" --executor slurm --time 10 >"$T/sub.out" 2>"$T/sub.err"
check "slurm: submitted (exit 0), one job of 16 tasks" eq "$?:$(grep -c 'submitted job [0-9]*: 16 tasks (array 0-15%2)' "$T/sub.err")" "0:1"
"$RUN" status "$T/slurm" >"$T/st.out" 2>/dev/null
check "slurm: status right after submitting: exit 1, tasks queued or running (squeue)" \
	eq "$?:$(grep -cE "^$T/slurm: [0-9]+ of 16 runs done \([0-9]+ disturbed\), [1-9][0-9]* queued or running \(Slurm\)$" "$T/st.out")" "1:1"
"$RUN" resume "$T/slurm" 2>"$T/res.err"
check "slurm: resume while tasks are queued: exit 2, one line" \
	eq "$?:$(wc -l <"$T/res.err"):$(grep -c 'still queued or running' "$T/res.err")" "2:1:1"
"$RUN" --out "$T/local" "${args[@]}" >"$T/local.out" 2>"$T/local.err"
check "local: exit 0" eq "$?" 0
"$RUN" wait "$T/slurm" >"$T/wait.out" 2>"$T/wait.err"
check "slurm: wait exits 0 with every run done" eq "$?:$(head -1 "$T/wait.out")" \
	"0:$T/slurm: 16 of 16 runs done ($(tail -n +2 "$T/slurm/runs.csv" | awk -F, '$16 == 1' | wc -l) disturbed), 0 queued or running (Slurm)"
files() { (cd "$1" && find . -type f ! -path './slurm/*' ! -name .lock | sort); }
check "slurm and local: the same files" eq "$(files "$T/slurm")" "$(files "$T/local")"
check "slurm and local: 42 files (4 VMs x 2 versions: 2 files in pure, 3 in sample; conf, runs.csv)" \
	eq "$(files "$T/slurm" | wc -l)" 42
rows() { tail -n +2 "$1/runs.csv" | cut -d, -f1-6 | sort -n; }
check "slurm and local: runs.csv has the same runs (index, mode, version, vm, attempt 1, exit 0)" \
	eq "$(rows "$T/slurm")" "$(rows "$T/local")"
check "slurm: 16 rows" eq "$(rows "$T/slurm" | wc -l)" 16
check "slurm: each task wrote only its rows file and its log" \
	eq "$(ls "$T/slurm/slurm/rows" | wc -l):$(ls "$T/slurm/slurm"/task-*.log | wc -l)" "16:16"
verdicts() {
	for m in pure s1; do
		"$EA" compare --base "$1/$m/base" --new "$1/$m/new" --alpha 0.05 --min-pct 10 --format=csv | tail -n +2 | cut -d, -f1,8 | sort
	done
}
vs=$(verdicts "$T/slurm")
sed 's/^/     /' <<<"$vs"
check "slurm and local: the same verdicts" eq "$vs" "$(verdicts "$T/local")"
check "the verdicts: every node slower" eq "$(cut -d, -f2 <<<"$vs" | sort -u)" "slower"
check "the verdicts: the run (pure) and the iteration's tree down to both leaves (sample)" \
	eq "$(grep -c '^run,\|leaf_0,\|leaf_1,\|^emp.sut.CallTree.runIteration,' <<<"$vs")" 4

# 2 ---------------------------------------------------------------------------------------------------------
F=$T/fail
"$RUN" --out "$F" --vms 2 --mode pure= --version "a=$JAVA -cp $T/later.jar emp.sut.CallTree --warmup 0 --iterations 5" \
	--executor slurm >/dev/null 2>&1
"$RUN" wait "$F" >"$T/fw.out" 2>"$T/fw.err"
check "failing tasks: wait exits 1" eq "$?" 1
check "failing tasks: each reported with its exit status and its log" \
	eq "$(grep -c 'task [01] (pure/a vm[12]) failed: the program exited with status 1' "$T/fw.err"):$(grep -c "log $F/slurm/task-[01].log:" "$T/fw.err")" "2:2"
check "failing tasks: the program's stderr shown (java's message)" grep -q '| .*emp.sut.CallTree' "$T/fw.err"
cp "$JAR" "$T/later.jar"
"$RUN" resume "$F" >/dev/null 2>"$T/fr.err"
check "resume: resubmits exactly the 2 failed tasks" grep -q 'submitted job [0-9]*: 2 tasks (array 0-1%1)' "$T/fr.err"
"$RUN" wait "$F" >/dev/null 2>&1
check "resume: then every run is done" eq "$?" 0
check "resume: both attempts of each run in runs.csv (exit 1, then 0)" \
	eq "$(tail -n +2 "$F/runs.csv" | cut -d, -f1,5,6 | tr '\n' ' ')" "0,1,1 0,2,0 1,1,1 1,2,0 "
"$RUN" resume "$F" 2>"$T/fr2.err"
check "resume of a finished experiment: nothing submitted" eq "$?:$(grep -c 'every run of' "$T/fr2.err")" "0:1"
exit $fail
