#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# probe-cost.sh - the trace probes' own cost, ns per traced call (enter + exit), on JDK 17 and JDK 25: MooBench
# pure vs emp mode=trace with writer=null (the probes alone) and writer=file, interleaved, one JVM per run; the
# slope of the time per top-level call over the recursion depth, minus pure's.  On a JDK 22+ it also runs the JNI
# flavour of the probes (variant emp-null-jni: an extra include pattern that can select a JDK class,
# java.lang.Void.none, makes the agent choose JNI; agent/trace/tracer.c), so the two flavours are compared side by side.
#
# Usage: bench/probe-cost.sh [--quick]        (make bench-probe-cost)
# Knobs (env): VMS (5; quick 2), DEPTHS ("10 50 100"), CALLS (500000 top-level calls per JVM, enough for C2 to settle the downcall path; quick 100000),
#   JDKS (java programs, default "$JAVA $JDK25/bin/java"), JVM_OPTS ("-Xms1G -Xmx2G"), PIN, KEEP_RAW, BUILD.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
bench_args "$@"
if ((quick)); then
	: "${VMS:=2}" "${CALLS:=100000}"
fi
: "${VMS:=5}" "${DEPTHS:=10 50 100}" "${CALLS:=500000}" "${JDK25:=/usr/lib/jvm/temurin-25-jdk-amd64}"
: "${JDKS:=$JAVA $JDK25/bin/java}"
BENCH_JVM_OPTS=${JVM_OPTS--Xms1G -Xmx2G}
METHOD=emp.sut.MooBench.monitoredMethod
bench_count_emp() {
	[[ -f $1/data/run.emp ]] || return 0 # writer=null: nothing is written, by design
	"$EMP_ANALYZE" info --format=csv "$1/data/run.emp" |
		awk -F, '$1 == "events" && ($3 == "exit" || $3 == "exit_throw") { n += $4; seen = 1 }
			END { if (seen) print "calls", n }'
}
for JAVA in $JDKS; do
	[[ -x $(command -v "$JAVA") ]] || { echo "bench: $JAVA not found, skipped" >&2; continue; }
	feature=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	BENCH_VARIANTS=() BENCH_CONFIGS=()
	bench_init "probe-cost-jdk$feature$( ((quick)) && echo -quick)"
	echo "knobs: VMS=$VMS DEPTHS='$DEPTHS' CALLS=$CALLS JVM_OPTS='$BENCH_JVM_OPTS'" >>"$BENCH_DIR/machine.txt"
	bench_variant pure ""
	bench_variant pure-b ""
	bench_variant emp-null "-agentpath:$EMP_LIB=mode=trace,include=$METHOD,writer=null"
	((feature >= 22)) && bench_variant emp-null-jni "-agentpath:$EMP_LIB=mode=trace,include=$METHOD;java.lang.Void.none,writer=null"
	bench_variant emp-file "-agentpath:$EMP_LIB=mode=trace,include=$METHOD,writer=file,out=@OUT@/data/run.emp"
	bench_moobench_slopes probe-cost
done
