#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-app.sh - tracing a whole real application, every method of its own packages traced.  Two applications
# (APP): h2 — the H2 database (fetched from Maven) under emp.sut.JdbcLoad's JDBC load (4 threads, point selects,
# range aggregates, joins), org.h2.* traced; javac — the JDK's own compiler (emp.sut.Compile, through javax.tools)
# compiling the sources jar of commons-lang3 (fetched from Maven; 254 files), com.sun.tools.javac.* traced.
# Variants, interleaved, one JVM per run: pure; emp (mode=trace,include=<the app's packages>, file writer); emp-bN
# (the same with budget=N: the probes of the methods that cost most for the time they account for are removed
# until their cost is under N % of the traced threads' CPU time); Kieker's AspectJ agent
# (OperationExecutionAspectFull woven within the app's packages, binary file writer), the only Kieker probe that
# can select a package (its ByteBuddy agent matches exact class names); with a JDK 25 `JAVA`, JFR's method tracing
# (`jdk.MethodTrace`, JEP 520: one event per call, no stack trace) and method timing (`jdk.MethodTiming`:
# invocation counts and times per method, emitted at the end) — their filters take class names, not packages, so
# the filter lists every class of the app's packages (H2: 1,054 with nested ones, from its jar; javac: from the
# JDK's module image), written into a .jfc by `jfr configure`.
#
# Per variant: whole-process wall time as a ratio to pure (median of the per-round ratios, bootstrap 95 % CI),
# calls recorded per run, bytes of output per call; for emp also ring_full_waits (traced threads waiting for the
# writer) and `emp-analyze calls` on the dump: seconds and peak memory (for JFR its own `jfr view`); for emp-bN
# the methods de-instrumented and the coverage: the share of the full trace's traced time (self time of every
# method in the emp run of the same round) that is in methods the budget run kept.  Every run's stdout
# (JdbcLoad's checksum, Compile's CRC of the class files) must equal the pure run's: an agent must not change what
# the program computes.
#
# Usage: bench/trace-app.sh [--quick]        (make bench-trace-app; APP=javac make bench-trace-app)
# Knobs (env): APP (h2 or javac; h2), VMS (3; quick 1), ROWS (50000; quick 10000), QUERIES (2000 per thread;
#   quick 500), THREADS (4) — h2's load; REPEAT (1: compilations per javac run), LANG_VERSION (3.18.0: the
#   commons-lang3 sources javac compiles);
#   VARIANTS ("pure emp emp-b10 kieker", plus "jfr-timing jfr-trace" when JAVA is JDK 25+; emp-bN: budget=N for
#   any N), H2_VERSION (2.3.232), KIEKER_VERSION (2.0.2), JAVA, PIN, KEEP_RAW, BUILD, EMP_OPTS (appended to emp's
#   agent options, e.g. ",ringsize=4M"), EMP_LIB_B (a second libemp.so, copied at start: variant emp-alt runs it
#   with the same options, interleaved with emp, for an A B A B comparison of builds).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
# shellcheck source=../scripts/maven.sh
. "$HERE/../scripts/maven.sh"
bench_args "$@"
if ((quick)); then
	: "${VMS:=1}" "${ROWS:=10000}" "${QUERIES:=500}"
fi
: "${APP:=h2}" "${VMS:=3}" "${ROWS:=50000}" "${QUERIES:=2000}" "${THREADS:=4}" "${REPEAT:=1}"
# shellcheck source=lib/jfr.sh
. "$HERE/lib/jfr.sh"
if [[ -z ${VARIANTS:-} ]]; then
	VARIANTS="pure emp emp-b10 kieker"
	jfr_methods && VARIANTS+=" jfr-timing jfr-trace"
fi
: "${H2_VERSION:=2.3.232}" "${KIEKER_VERSION:=2.0.2}" "${LANG_VERSION:=3.18.0}"
CACHE=$BENCH_ROOT/bench/.cache
# Per application: what emp traces (INCLUDE), what Kieker weaves (WITHIN), the classes JFR's filter lists
# (jfr_classes, ;-separated), the program.
case $APP in
h2)
	H2_JAR=$(maven_get "$CACHE" com.h2database h2 "$H2_VERSION") || bench_die "cannot fetch H2 $H2_VERSION"
	BENCH_CP=$H2_JAR INCLUDE='org.h2.*' WITHIN='org.h2..*'
	jfr_classes() { unzip -Z1 "$H2_JAR" | sed -n 's#^\(org/h2/.*\)\.class$#\1#p' | tr / . | paste -sd';'; }
	KNOBS="ROWS=$ROWS QUERIES=$QUERIES THREADS=$THREADS H2=$H2_VERSION"
	;;
javac)
	LANG_SRC=$(maven_get "$CACHE" org.apache.commons commons-lang3 "$LANG_VERSION" sources) ||
		bench_die "cannot fetch the commons-lang3 $LANG_VERSION sources"
	INCLUDE='com.sun.tools.javac.*' WITHIN='com.sun.tools.javac..*'
	# the classes of com.sun.tools.javac in the JDK's module image (jimage lists them per module)
	jfr_classes() {
		local bin
		bin=$(dirname "$(readlink -f "$(command -v "$JAVA")")")
		"$bin/jimage" list "$bin/../lib/modules" |
			awk '/^Module: /{m=$2} m=="jdk.compiler" && $1 ~ /^com\/sun\/tools\/javac\/.*\.class$/ {print $1}' |
			sed 's#\.class$##' | tr / . | paste -sd';'
	}
	KNOBS="REPEAT=$REPEAT COMMONS_LANG3=$LANG_VERSION"
	;;
*) bench_die "unknown APP '$APP' (h2, javac)" ;;
esac
bench_init trace-app-$APP$( ((quick)) && echo -quick)
echo "knobs: APP=$APP VMS=$VMS VARIANTS='$VARIANTS' $KNOBS" >>"$BENCH_DIR/machine.txt"

for v in $VARIANTS; do
	case $v in
	pure) bench_variant pure "" ;;
	emp) bench_variant emp "-agentpath:$EMP_LIB=mode=trace,include=$INCLUDE${EMP_OPTS:-},out=@OUT@/data/run.emp" ;;
	emp-alt)
		[[ -f ${EMP_LIB_B:-} ]] || bench_die "variant emp-alt needs EMP_LIB_B=<a libemp.so> (got '${EMP_LIB_B:-}')"
		cp "$EMP_LIB_B" "$BENCH_DIR/bin/libemp-alt.so"
		bench_variant emp-alt "-agentpath:$BENCH_DIR/bin/libemp-alt.so=mode=trace,include=$INCLUDE${EMP_OPTS:-},out=@OUT@/data/run.emp"
		;;
	emp-b[0-9]*) bench_variant "$v" "-agentpath:$EMP_LIB=mode=trace,include=$INCLUDE,budget=${v#emp-b}${EMP_OPTS:-},out=@OUT@/data/run.emp" ;;
	kieker)
		eval "$(KIEKER_VERSION=$KIEKER_VERSION "$HERE/lib/fetch-peers.sh" kieker-aspectj)" ||
			bench_die "cannot fetch Kieker $KIEKER_VERSION (aspectj)"
		why=$(bench_kieker_aj_usable "$KIEKER_AJ_JAR") || bench_die "variant kieker: $why (leave it out of VARIANTS)"
		cat >"$BENCH_DIR/bin/aop.xml" <<EOF
<!DOCTYPE aspectj PUBLIC "-//AspectJ//DTD//EN" "http://www.aspectj.org/dtd/aspectj_1_5_0.dtd">
<aspectj>
  <weaver options="-warn:none -Xlint:ignore"><include within="$WITHIN"/></weaver>
  <aspects><aspect name="kieker.monitoring.probe.aspectj.operationExecution.OperationExecutionAspectFull"/></aspects>
</aspectj>
EOF
		cat >"$BENCH_DIR/bin/kieker.properties" <<'EOF'
kieker.monitoring.enabled=true
kieker.monitoring.writer=kieker.monitoring.writer.filesystem.FileWriter
kieker.monitoring.writer.filesystem.FileWriter.logStreamHandler=kieker.monitoring.writer.filesystem.BinaryLogStreamHandler
kieker.monitoring.writer.filesystem.FileWriter.maxEntriesInFile=1000000
kieker.monitoring.core.controller.WriterController.RecordQueueFQN=java.util.concurrent.ArrayBlockingQueue
kieker.monitoring.core.controller.WriterController.RecordQueueSize=10000
kieker.monitoring.core.controller.WriterController.RecordQueueInsertBehavior=1
EOF
		# Kieker's default queue (jctools MpscArrayQueue, blocking insert) hung here: all four JDBC threads parked
		# in SPBlockingPutStrategy.backoffOffer with the writer idle, a lost wake-up with several producers.  A
		# java.util.concurrent.ArrayBlockingQueue keeps the same semantics (block when full, nothing dropped).
		echo "kieker: $KIEKER_VERSION aspectj ($KIEKER_AJ_JAR)" >>"$BENCH_DIR/machine.txt"
		bench_variant kieker "-javaagent:$KIEKER_AJ_JAR -Dorg.aspectj.weaver.loadtime.configuration=file:$BENCH_DIR/bin/aop.xml -Dkieker.monitoring.configuration=$BENCH_DIR/bin/kieker.properties -Dkieker.monitoring.writer.filesystem.FileWriter.customStoragePath=@OUT@/data"
		;;
	jfr-timing | jfr-trace)
		jfr_variant "$v" "$(jfr_classes)"
		;;
	*) bench_die "unknown variant '$v' (pure, emp, emp-alt, emp-bN, kieker, jfr-timing, jfr-trace)" ;;
	esac
done

# Counts, called while the run's data is still there: calls recorded, and the extra emp/Kieker figures in
# OUTDIR/extra.txt ("key value" lines) for the report below.
bench_count_emp() {
	local out=$1 dump=$1/data/run.emp calls
	"$EMP_ANALYZE" info --format=csv "$dump" >"$out/info.csv" || return 1
	calls=$(awk -F, '$1=="events" && $3=="enter" {print $4}' "$out/info.csv")
	{
		echo "bytes $(stat -c %s "$dump")"
		echo "ring_full_waits $(awk -F, '$1=="counters" && $3=="ring_full_waits" {print $4}' "$out/info.csv")"
		echo "removed $(awk -F, '$1=="counters" && $3=="budget_methods_removed" {print $4}' "$out/info.csv")"
		# calls.csv: self time per method (the report's coverage; budget= marks the methods it removed)
		/usr/bin/time -f 'analyzer %e %M' "$EMP_ANALYZE" calls --format=csv "$dump" 2>&1 >"$out/calls.csv" | tail -1
	} >"$out/extra.txt"
	# the full trace's calling contexts: the report's second coverage (time still inside a traced call); not for
	# javac, whose recursive descent makes about 10 M contexts (3 GB of csv with their paths)
	[[ $out == *-emp-vm* && $APP == h2 ]] && "$EMP_ANALYZE" tree --min-pct 0 --format=csv "$dump" >"$out/tree.csv"
	echo "calls $calls"
}
# JFR: method-trace records one jdk.MethodTrace event per call; method-timing one jdk.MethodTiming event per method
# with its invocation count (summed here).  The reader is JFR's own view of the recording (`jfr view method-calls`
# or `method-timing`, heap capped at 6 GB; a reader that fails leaves the column empty).
bench_count_jfr() {
	local out=$1 view=method-calls t
	[[ $out == *jfr-timing* ]] && view=method-timing
	echo "bytes $(stat -c %s "$out/data/run.jfr")" >"$out/extra.txt"
	t=$(/usr/bin/time -f 'analyzer %e %M' "$JFR_TOOL" -J-Xmx6g view "$view" "$out/data/run.jfr" 2>&1 >/dev/null | tail -1)
	[[ $t == "analyzer "* ]] && echo "$t" >>"$out/extra.txt"
	jfr_calls "$out"
}
bench_count_kieker() {
	local out=$1 n
	n=$(python3 "$HERE/lib/kieker-count.py" "$out/data" | awk '$1=="records" {print $2}')
	echo "bytes $(du -sb "$out/data" | cut -f1)" >"$out/extra.txt"
	echo "calls $n"
}

if [[ $APP == h2 ]]; then
	bench_config h2 "$ROWS" 0.5 emp.sut.JdbcLoad --rows "$ROWS" --queries "$QUERIES" --threads "$THREADS"
else
	bench_config javac "$REPEAT" 0 emp.sut.Compile --src "$LANG_SRC" --repeat "$REPEAT"
fi
bench_run "$VMS"

python3 "$HERE/lib/trace-app-report.py" "$BENCH_DIR" | tee "$BENCH_DIR/report.md"
