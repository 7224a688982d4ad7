#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-moobench.sh - MooBench-style depth scaling of the cost per traced call: pure, emp trace mode (writer=null
# and writer=file), the Kieker 2.0 ByteBuddy agent (binary file writer) and the OpenTelemetry Java agent
# (exporters none), and with a JDK 25 `JAVA` JFR's method timing and method tracing of monitoredMethod (JEP 520,
# bench/lib/jfr.sh), interleaved, one JVM per run.  ns per call = least-squares slope of the time per top-level
# call over the recursion depth; records written per call made, so a peer that drops records shows it.
#
# Usage: bench/trace-moobench.sh [--quick]        (make bench-trace-moobench)
# Knobs (env): VMS (5; quick 2), DEPTHS ("2 4 8 10 16 32 64 128"; quick "2 10 32"), CALLS (100000 top-level
#   calls per JVM; quick 50000), PEERS ("kieker otel", plus "jfr" when JAVA is JDK 25+), EMP_WRITERS ("null file"), JVM_OPTS ("-Xms1G -Xmx2G",
#   as MooBench), JAVA, PIN, KEEP_RAW, BUILD.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
# shellcheck source=lib/jfr.sh
. "$HERE/lib/jfr.sh"
bench_args "$@"
if ((quick)); then
	: "${VMS:=2}" "${DEPTHS:=2 10 32}" "${CALLS:=50000}"
fi
: "${VMS:=5}" "${DEPTHS:=2 4 8 10 16 32 64 128}" "${CALLS:=100000}" "${EMP_WRITERS:=null file}"
PEERS=${PEERS-kieker otel$(jfr_methods && echo " jfr")}
BENCH_JVM_OPTS=${JVM_OPTS--Xms1G -Xmx2G}
bench_init trace-moobench$( ((quick)) && echo -quick)
for p in ${PEERS//jfr/}; do # JFR comes with the JDK
	eval "$("$HERE/lib/fetch-peers.sh" "$p")" || bench_die "peer $p unavailable (set PEERS to skip it)"
done
{
	[[ $PEERS == *kieker* ]] && echo "kieker: $KIEKER_VERSION ($KIEKER_JAR)"
	[[ $PEERS == *otel* ]] && echo "opentelemetry-javaagent: $OTEL_VERSION ($OTEL_JAR)"
	[[ $PEERS == *jfr* ]] && echo "jfr: $("${JAVA:-java}" -version 2>&1 | head -1)"
	echo "knobs: VMS=$VMS DEPTHS='$DEPTHS' CALLS=$CALLS PEERS='$PEERS' EMP_WRITERS='$EMP_WRITERS' JVM_OPTS='$BENCH_JVM_OPTS'"
} >>"$BENCH_DIR/machine.txt"

METHOD=emp.sut.MooBench.monitoredMethod
# Kieker's ByteBuddy agent selects methods by full signature from this variable (only Kieker reads it).
export KIEKER_SIGNATURES_INCLUDE="public long $METHOD(long, int)"
KIEKER_SIGNATURE="public long $METHOD(long,int)" # as kieker.map spells it

# Calls recorded: emp counts exits (normal + exceptional; one per call), Kieker its OperationExecutionRecords
# (one per call) of monitoredMethod.
bench_count_emp() {
	[[ -f $1/data/run.emp ]] || return 0 # writer=null: nothing is written, by design
	"$EMP_ANALYZE" info --format=csv "$1/data/run.emp" |
		awk -F, '$1 == "events" && ($3 == "exit" || $3 == "exit_throw") { n += $4; seen = 1 }
			END { if (seen) print "calls", n }'
}
bench_count_jfr() {
	jfr_calls "$1"
}
bench_count_kieker() {
	python3 "$HERE/lib/kieker-count.py" "$1/data" "$KIEKER_SIGNATURE" | sed 's/^records /calls /'
}

bench_variant pure ""
bench_variant pure-b ""
for wr in $EMP_WRITERS; do
	bench_variant "emp-$wr" "-agentpath:$EMP_LIB=mode=trace,include=$METHOD,writer=$wr$([[ $wr == file ]] && echo ,out=@OUT@/data/run.emp)"
done
# Kieker as MooBench's configuration 4 (binary FileWriter, YieldPutStrategy), except maxLogFiles stays at its
# default -1 (keep every file): MooBench's 100 would delete old files and we count what was written.
# net.bytebuddy.experimental: Kieker 2.0.2's Byte Buddy supports class files up to Java 23; on JDK 25 it throws on
# every class and instruments nothing (no record written: the run counts as failed, runner.sh) unless told to
# read newer class files.
[[ $PEERS == *kieker* ]] && bench_variant kieker "-javaagent:$KIEKER_JAR -Dnet.bytebuddy.experimental=true -Dkieker.monitoring.name=KIEKER-BENCHMARK \
-Dkieker.monitoring.adaptiveMonitoring.enabled=false -Dkieker.monitoring.periodicSensorsExecutorPoolSize=0 \
-Dkieker.monitoring.enabled=true -Dkieker.monitoring.writer=kieker.monitoring.writer.filesystem.FileWriter \
-Dkieker.monitoring.writer.filesystem.FileWriter.logStreamHandler=kieker.monitoring.writer.filesystem.BinaryLogStreamHandler \
-Dkieker.monitoring.writer.filesystem.FileWriter.bufferSize=8192 \
-Dkieker.monitoring.writer.filesystem.FileWriter.customStoragePath=@OUT@/data/ \
-Dkieker.monitoring.core.controller.WriterController.QueuePutStrategy=kieker.monitoring.queue.putstrategy.YieldPutStrategy"
# OpenTelemetry: one span per call, exported nowhere — the cost of building spans, with no record kept.
[[ $PEERS == *otel* ]] && bench_variant otel "-javaagent:$OTEL_JAR -Dotel.instrumentation.methods.include=emp.sut.MooBench[monitoredMethod] \
-Dotel.traces.exporter=none -Dotel.metrics.exporter=none -Dotel.logs.exporter=none -Dotel.javaagent.logging=none"
# JFR: jdk.MethodTiming (invocation count and time per method, emitted at the end of the recording) and
# jdk.MethodTrace (one event per call, no stack trace, threshold 0) of monitoredMethod alone.
if [[ $PEERS == *jfr* ]]; then
	jfr_variant jfr-timing "${METHOD%.*}::${METHOD##*.}"
	jfr_variant jfr-trace "${METHOD%.*}::${METHOD##*.}"
fi

bench_moobench_slopes trace-moobench
