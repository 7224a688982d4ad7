#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# real-programs.sh - profilers on program shapes where the answer is known: share of the ground-truth method,
# samples per CPU second and wall time against pure runs, for emp, async-profiler (cpu engine) and JFR
# (jdk.ExecutionSample; on JDK 25+ also jdk.CPUTimeSample, JEP 509), interleaved, one JVM per run.
# Shapes: churn (emp.sut.Churn --shape spawn: rounds of short-lived threads burning 0.3 ms of CPU each in
# emp.sut.Churn.work), churn-pool (--shape pool: a new fixed thread pool per round).  The truth is the program's
# own share_user line (CPU in the method / user CPU of the process) from the pure runs; `share` (user + sys) too.
#
# Usage: bench/real-programs.sh [--quick]        (make bench-real-programs)
# Knobs (env): VMS (5; quick 2), INTERVALS ("1 10"), SHAPES ("churn churn-pool"; quick "churn"),
#   ROUNDS (300; quick 100), THREADS (50), BURN_US (300), PEERS ("asprof jfr"), JAVA, PIN, KEEP_RAW, BUILD.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
bench_args "$@"
if ((quick)); then
	: "${VMS:=2}" "${SHAPES:=churn}" "${ROUNDS:=100}"
fi
: "${VMS:=5}" "${INTERVALS:=1 10}" "${SHAPES:=churn churn-pool}" "${ROUNDS:=300}" "${THREADS:=50}" "${BURN_US:=300}"
PEERS=${PEERS-asprof jfr}
bench_init real-programs$( ((quick)) && echo -quick)
if [[ $PEERS == *asprof* ]]; then
	eval "$("$HERE/lib/fetch-peers.sh" asprof)" || bench_die "async-profiler unavailable (PEERS=jfr to skip it)"
	echo "async-profiler: $ASPROF_VERSION ($ASPROF_LIB)" >>"$BENCH_DIR/machine.txt"
fi
feature=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
echo "knobs: VMS=$VMS INTERVALS='$INTERVALS' SHAPES='$SHAPES' ROUNDS=$ROUNDS THREADS=$THREADS BURN_US=$BURN_US PEERS='$PEERS'" \
	>>"$BENCH_DIR/machine.txt"

# The ground-truth method of every shape (all are emp.sut.Churn so far).
METHOD=emp.sut.Churn.work

# Count functions (runner.sh calls bench_count_<variant prefix> OUTDIR after each run): print "samples N" and
# leave the method's share of the samples in OUTDIR/share.txt.
share_out() { awk -v n="$1" -v m="$2" 'BEGIN { printf "%.6f\n", (n > 0 ? m / n : 0) }'; }
bench_count_emp() {
	local n m
	n=$("$EMP_ANALYZE" info --format=csv "$1/run.emp" | awk -F, '$1 == "events" && $3 == "sample" { print $4 }')
	m=$("$EMP_ANALYZE" top --format=csv "$1/run.emp" | awk -F, -v m="$METHOD" '$1 == m { print $3 }')
	share_out "${n:-0}" "${m:-0}" >"$1/share.txt"
	echo "samples ${n:-0}"
}
bench_count_ap() {
	# collapsed: "frame;frame;...;leaf count", Java frames as pkg/Class.method (slashes or dots by version).
	awk -v m="${METHOD//./[./]}" '{ n += $NF; if ($0 ~ "(^|;)" m "(_\\[.\\])?( |;)") k += $NF }
		END { printf "%.6f\n", n ? k / n : 0 > "/dev/stderr"; print "samples", n + 0 }' "$1/ap.collapsed" \
		2>"$1/share.txt"
}
# JFR: the events' top frames from `jfr print` (the method is a leaf), then the file is deleted.
jfr_count() {
	local ev=$1 dir=$2
	"$(dirname "$(readlink -f "$(command -v "$JAVA")")")/jfr" print --events "$ev" "$dir/run.jfr" |
		awk -v m="$METHOD" '/stackTrace = \[/ { top = 1; next }
			top { n++; if (index($1, m "(") == 1) k++; top = 0 }
			END { printf "%.6f\n", n ? k / n : 0 > "/dev/stderr"; print "samples", n + 0 }' 2>"$dir/share.txt"
	rm -f "$dir/run.jfr"
}
bench_count_jfr() { jfr_count jdk.ExecutionSample "$1"; }
bench_count_jfrcpu() { jfr_count jdk.CPUTimeSample "$1"; }

# JFR settings enabling only jdk.CPUTimeSample (JEP 509) at one sample per PERIOD of CPU time.
jfr_cpu_settings() {
	local f=$BENCH_DIR/bin/jfr-cputime-${1// /}.jfc
	cat >"$f" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="emp-bench" description="jdk.CPUTimeSample only" provider="emp bench">
  <event name="jdk.CPUTimeSample">
    <setting name="enabled">true</setting>
    <setting name="throttle">$1</setting>
  </event>
</configuration>
EOF
	printf '%s\n' "$f"
}

bench_variant pure ""
for i in $INTERVALS; do
	bench_variant "emp-${i}ms" "-agentpath:$EMP_LIB=mode=sample,interval=${i}ms,out=@OUT@/run.emp"
	[[ $PEERS == *asprof* ]] &&
		bench_variant "ap-${i}ms" "-agentpath:$ASPROF_LIB=start,event=cpu,interval=${i}ms,collapsed,file=@OUT@/ap.collapsed"
	[[ $PEERS == *jfr* ]] &&
		bench_variant "jfr-${i}ms" "-XX:StartFlightRecording=settings=$(bench_jfr_settings "$i ms"),filename=@OUT@/run.jfr"
	[[ $PEERS == *jfr* ]] && ((${feature%%.*} >= 25)) &&
		bench_variant "jfrcpu-${i}ms" "-XX:StartFlightRecording=settings=$(jfr_cpu_settings "$i ms"),filename=@OUT@/run.jfr"
done
for s in $SHAPES; do
	case $s in
	churn) bench_config churn "$ROUNDS" 0 emp.sut.Churn --rounds "$ROUNDS" --threads "$THREADS" --burn-us "$BURN_US" \
		--shape spawn ;;
	churn-pool) bench_config churn-pool "$ROUNDS" 0 emp.sut.Churn --rounds "$ROUNDS" --threads "$THREADS" \
		--burn-us "$BURN_US" --shape pool ;;
	*) bench_die "unknown shape '$s' (churn, churn-pool)" ;;
	esac
done
bench_run "$VMS"
{
	echo "## real-programs ($(date -u +%Y-%m-%d), $(sed -n 's/^java: //p' "$BENCH_DIR/machine.txt"))"
	echo
	echo "Share of $METHOD in each tool's samples against the program's own truth (pure runs: CPU in the method /"
	echo "user CPU of the process, and / user + sys); samples per second of process CPU (user + sys); wall time and"
	echo "process CPU time (user + sys) of the whole JVM run against pure. Medians over the VMs; in brackets the range."
	echo
	python3 "$HERE/lib/real-programs-report.py" "$BENCH_DIR"
	echo
	sed 's/^/    /' "$BENCH_DIR/machine.txt"
} | tee "$BENCH_DIR/report.md"
