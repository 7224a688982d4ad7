#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iteration_cpu.sh - iteration= records the thread's CPU time at the iteration method's entry and exit (dump
# format 1.2, CPU events), in trace mode and in sample mode, and compare reads it (--metric=cpu, --drop-disturbed).
#
# Per mode, 2 CallTree VMs of W + I iterations.  Asserts: exactly 2 (W + I) CPU events per dump (runIteration is
# called W + I times; no other call reads the CPU clock) and lost_iteration_cpu 0; every measured iteration has a
# CPU time above 0 (--drop-disturbed=1e9 drops none: wall <= 1e9 x CPU); trace mode: the iteration node's mean CPU
# time is at most its mean wall time (+1 %: the ticks are converted to ns with clock_hz, estimated in 10 ms at load).
# No timing target.  Knobs (env): KEEP=1 keeps the dumps.
set -uo pipefail
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
command -v "$JAVA" >/dev/null || { echo "iteration_cpu: no java, skipped"; exit 77; }
LIB=$(readlink -f "$BUILD/libemp.so")
JAR=$(readlink -f "$BUILD/java-sut.jar")
ANALYZE=$BUILD/emp-analyze
W=5 I=40
T=$(mktemp -d /tmp/emp-itercpu.XXXXXX)
[[ ${KEEP:-0} == 1 ]] && echo "iteration_cpu: keeping $T" || trap 'rm -rf "$T"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
# mean OPTIONS... - base_mean of the iteration node from compare's csv
mean() {
	"$ANALYZE" compare --base "$T/$mode/a" --new "$T/$mode/b" --warmup "$W" --format=csv "$@" 2>"$T/err" |
		awk -F, '$1 == "emp.sut.CallTree.runIteration" { print $2 }'
}

for mode in trace sample; do
	case $mode in
	trace) opts="mode=trace,include=emp.sut.tree.*" ;;
	sample) opts="mode=sample,interval=1ms" ;;
	esac
	for set in a b; do
		mkdir -p "$T/$mode/$set"
		dump=$T/$mode/$set/vm1.emp
		"$JAVA" -agentpath:"$LIB=$opts,iteration=emp.sut.CallTree.runIteration,out=$dump" -cp "$JAR" \
			emp.sut.CallTree --depth 2 --warmup "$W" --iterations "$I" >/dev/null 2>"$T/run.err" ||
			{ echo "FAIL $mode $set: java failed: $(head -3 "$T/run.err")"; fail=1; continue; }
		info=$("$ANALYZE" info "$dump" 2>&1)
		cpu=$(awk '$2 == "cpu" { print $3 }' <<<"$info")
		lost=$(awk '$2 == "lost_iteration_cpu" { print $3 }' <<<"$info")
		check "$mode $set: $((2 * (W + I))) CPU events (got ${cpu:-none})" test "${cpu:-0}" -eq $((2 * (W + I)))
		check "$mode $set: lost_iteration_cpu 0 (got ${lost:-none})" test "${lost:-x}" = 0
	done
	out=$("$ANALYZE" compare --base "$T/$mode/a" --new "$T/$mode/b" --warmup "$W" --drop-disturbed=1e9 2>&1)
	check "$mode: every iteration has a CPU time > 0" grep -q "^0 measurement iterations dropped as disturbed" <<<"$out"
	if [[ $mode == trace ]]; then
		wall=$(mean) cpu=$(mean --metric=cpu)
		echo "     trace: iteration mean wall ${wall:-?} ns, CPU ${cpu:-?} ns"
		check "trace: 0 < CPU <= wall x 1.01" awk -v w="${wall:-0}" -v c="${cpu:-0}" 'BEGIN { exit !(c > 0 && c <= w * 1.01) }'
	fi
done
exit $fail
