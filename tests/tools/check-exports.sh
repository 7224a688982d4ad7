#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-exports.sh - `emp-analyze export --kieker` and `--chrome` against what the real tools make of them (issue #4).
# Downloads things, so it is not part of `make test`; run it with `make check-exports`.
#
# For each workload (CallTree depth 2 and 4, ForkJoinFib on several threads, and tests/tools/ExportProbe.java:
# constructors, <clinit>, overloads, exceptions, a daemon thread parked inside traced calls and System.exit()
# from inside traced calls) on $JAVA and, when present, JDK 25:
#   1. trace it (mode=trace) and take emp's own view: `emp-analyze calls` (validation line) and
#      `emp-analyze tree --min-pct=0 --format csv` (every calling context with its call count);
#   2. export --kieker and run Kieker 2.0.2's trace-analysis chain on it (tests/tools/KiekerTraceCheck.java, with
#      Kieker's own jar from Maven Central): every record must be read, every trace valid, none invalid;
#      then the execution traces Kieker printed are rebuilt into calling contexts and must equal emp's tree
#      exactly (ExportProbe, whose dump ends with calls still open: its exact call table instead), and the
#      durations per method must add up to emp's within 1 ns per call (each timestamp is rounded once);
#   3. export --chrome and check the Trace Event Format and Perfetto-style nesting (tests/tools/check_exports.py):
#      the contexts rebuilt from ts/dur nesting per thread must equal emp's tree, depth = ess for every event,
#      durations as for Kieker.
# With KIEKER_TRACE_ANALYSIS_SRC set to the src directory of Kieker 2.0.2's tools/trace-analysis (a source
# checkout; the tool's front end is not on Maven Central), the real TraceAnalysisToolMain is compiled against the
# same jars and run with --print-Execution-Traces --print-Message-Traces --print-invalid-Execution-Traces too: it
# must report "N total; N succeeded; 0 failed" and print byte-identical execution and message traces.
#
# Env: BUILD (build), JAVA (java), JDK25, EMP_EXPORTS_CACHE (~/.cache/emp-exports), MAVEN_REPO (Maven Central),
#      EMP_AGENT / EMP_ANALYZE / EMP_SUT_JAR (other builds of the agent, analyzer, java-sut),
#      KIEKER_TRACE_ANALYSIS_SRC (optional, see above), KEEP=1 keeps the scratch directory.
# Output: one line per check, "check-exports: N passed, N failed" last; exit 0 when every check passed.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
CACHE=${EMP_EXPORTS_CACHE:-$HOME/.cache/emp-exports}
AGENT=${EMP_AGENT:-$TOP/$BUILD/libemp.so}
ANALYZE=${EMP_ANALYZE:-$TOP/$BUILD/emp-analyze}
SUT=${EMP_SUT_JAR:-$TOP/$BUILD/java-sut.jar}
TOOLS=$TOP/tests/tools
for f in "$AGENT" "$ANALYZE" "$SUT"; do
	[[ -e $f ]] || { echo "check-exports: $f is missing (run make first)" >&2; exit 2; }
done
JAVAC=$(dirname "$(readlink -f "$(command -v "$JAVA")")")/javac
[[ -x $JAVAC ]] || { echo "check-exports: no javac beside $JAVA" >&2; exit 2; }

mkdir -p "$CACHE/jars"
TMP=$(mktemp -d)
[[ ${KEEP:-0} == 1 ]] && echo "check-exports: scratch directory $TMP" || trap 'rm -rf "$TMP"' EXIT

# shellcheck source=../../scripts/maven.sh
. "$TOP/scripts/maven.sh"
get() { maven_get "$CACHE/jars" "$@"; }

# Kieker's analysis library and what its reader and trace filters load (its POM lists only slf4j and jctools;
# the log goes through logback, as in Kieker's tools).
CP=
for gav in net.kieker-monitoring:kieker:2.0.2 org.slf4j:slf4j-api:2.0.16 ch.qos.logback:logback-classic:1.5.7 \
	ch.qos.logback:logback-core:1.5.7; do
	jar=$(get ${gav//:/ }) || { echo "check-exports: cannot fetch $gav" >&2; exit 1; }
	CP=$CP${CP:+:}$jar
done
TOOL_CP=
if [[ -n ${KIEKER_TRACE_ANALYSIS_SRC:-} ]]; then
	[[ -f $KIEKER_TRACE_ANALYSIS_SRC/kieker/tools/trace/analysis/TraceAnalysisToolMain.java ]] ||
		{ echo "check-exports: no kieker/tools/trace/analysis/TraceAnalysisToolMain.java in $KIEKER_TRACE_ANALYSIS_SRC" >&2; exit 2; }
	# the tool's command line (jcommander), its .kax export of the analysis configuration (EMF) and TeeTime, which
	# the source tree's other front end (TraceAnalysisToolNewMain) compiles against
	TOOL_CP=$CP
	for gav in com.beust:jcommander:1.72 de.cau.cs.se.teetime:teetime:3.1.1 org.eclipse.emf:org.eclipse.emf.common:2.31.0 \
		org.eclipse.emf:org.eclipse.emf.ecore:2.37.0 org.eclipse.emf:org.eclipse.emf.ecore.xmi:2.38.0; do
		jar=$(get ${gav//:/ }) || { echo "check-exports: cannot fetch $gav" >&2; exit 1; }
		TOOL_CP=$TOOL_CP:$jar
	done
	mkdir -p "$TMP/ta-classes"
	"$JAVAC" -nowarn -d "$TMP/ta-classes" -cp "$TOOL_CP" $(find "$KIEKER_TRACE_ANALYSIS_SRC" -name '*.java') 2>"$TMP/javac.err" ||
		{ cat "$TMP/javac.err" >&2; exit 1; }
	TOOL_CP=$TMP/ta-classes:$TOOL_CP
fi
mkdir -p "$TMP/classes"
"$JAVAC" -nowarn -d "$TMP/classes" -cp "$CP" "$TOOLS/KiekerTraceCheck.java" "$TOOLS/ExportProbe.java" 2>"$TMP/javac.err" ||
	{ cat "$TMP/javac.err" >&2; exit 1; }
# Kieker's log on stderr at INFO (WARN/ERROR count as failures); the trace-analysis tool prints its trace
# processing summaries at DEBUG, so its run gets that level for the filters' logger.
for level in info debug; do
	cat >"$TMP/logback-$level.xml" <<EOF
<configuration>
  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <logger name="kieker.tools.trace.analysis.filter" level="$level" />
  <root level="info"><appender-ref ref="ERR" /></root>
</configuration>
EOF
done

passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# check NAME JDK INCLUDE EXPECT|- JAVA_ARGS...: one workload through both exports and both checks
check() {
	local name=$1 jdk=$2 include=$3 expect=$4
	shift 4
	local d=$TMP/$name
	mkdir -p "$d"
	if ! "$jdk" -agentpath:"$AGENT"=mode=trace,include="$include",out="$d/run.emp" "$@" >"$d/java.out" 2>"$d/java.err"; then
		bad "$name: the traced JVM failed: $(head -c 300 "$d/java.err")"
		return
	fi
	"$ANALYZE" calls "$d/run.emp" >"$d/calls.txt" 2>"$d/calls.err" || true
	"$ANALYZE" calls --format csv "$d/run.emp" >"$d/calls.csv" 2>/dev/null || true
	local validation
	validation=$(cat "$d/calls.txt" "$d/calls.err" | grep -m1 ' traces, ' || true)
	if [[ ! $validation =~ violations:\ 0\ eoi,\ 0\ ess,\ 0\ time,\ 0\ exits ]]; then
		bad "$name: emp's own trace validation: $validation"
		return
	fi
	local calls open
	calls=$(sed -n 's/.* traces, \([0-9]*\) calls.*/\1/p' <<<"$validation")
	open=$(sed -n 's/.*, \([0-9]*\) still open.*/\1/p' <<<"$validation")
	local against=(--tree "$d/tree.csv" --calls "$d/calls.csv")
	"$ANALYZE" tree --min-pct=0 --format csv "$d/run.emp" >"$d/tree.csv" 2>/dev/null
	if [[ $expect != - ]]; then
		against=(--expect "$d/expect.txt" --calls "$d/calls.csv")
		printf '%s\n' "$expect" >"$d/expect.txt"
	elif [[ $open != 0 ]]; then
		bad "$name: $open calls still open at the end (emp's tree leaves them out; use an expectation table)"
		return
	fi
	local exported=$((calls + open))

	# Kieker
	if ! "$ANALYZE" export --kieker "$d/kieker" "$d/run.emp" 2>"$d/export.err"; then
		bad "$name: export --kieker: $(cat "$d/export.err")"
		return
	fi
	local summary
	summary=$("$JAVA" -Dlogback.configurationFile="$TMP/logback-info.xml" -cp "$TMP/classes:$CP" KiekerTraceCheck \
		"$d/kieker" "$d/kieker-out" 2>"$d/kieker.err") || true
	local warns
	warns=$(grep -c -E '^(WARN|ERROR)' "$d/kieker.err" || true)
	local roots
	roots=$(grep -c '^TraceId ' "$d/kieker-out/executionTraces.txt" 2>/dev/null || true)
	if [[ $summary == "kieker-check records=$exported executions=$exported traces=$roots valid=$roots invalid=0 exec_traces_written=$roots msg_traces_written=$roots invalid_written=0 state=TERMINATED" &&
		$warns == 0 && $roots -gt 0 ]]; then
		ok "$name: Kieker read $exported of $exported records, $roots traces valid, 0 invalid, no warnings"
	else
		bad "$name: Kieker: '$summary' (exported $exported records), $warns WARN/ERROR lines: $(grep -m3 -E '^(WARN|ERROR)' "$d/kieker.err" | cut -c1-200)"
	fi
	if python3 "$TOOLS/check_exports.py" kieker "$d/kieker-out/executionTraces.txt" "${against[@]}" >"$d/kieker.cmp"; then
		ok "$name: $(tail -n 1 "$d/kieker.cmp")"
	else
		bad "$name: $(head -n 5 "$d/kieker.cmp" | tr '\n' ' ')"
	fi
	if [[ -n $TOOL_CP ]]; then
		mkdir -p "$d/ta-out"
		(cd "$d" && "$JAVA" -Dlogback.configurationFile="$TMP/logback-debug.xml" -cp "$TOOL_CP" \
			kieker.tools.trace.analysis.TraceAnalysisToolMain -i "$d/kieker" -o "$d/ta-out" --print-Execution-Traces \
			--print-Message-Traces --print-invalid-Execution-Traces >"$d/ta.out" 2>"$d/ta.err") || true
		local rec
		rec=$(grep -A1 'Plugin: kieker.tools.trace.analysis.filter.traceReconstruction.TraceReconstructionFilter' "$d/ta.err" |
			sed -n 's/.*Trace processing summary: \(.*\)/\1/p')
		rec=${rec%.}
		if [[ $rec == "$roots total; $roots succeeded; 0 failed" ]] && grep -q 'Analysis complete' "$d/ta.err" &&
			! grep -q -E '^(WARN|ERROR)' "$d/ta.err" &&
			cmp -s "$d/ta-out/executionTraces.txt" "$d/kieker-out/executionTraces.txt" &&
			cmp -s "$d/ta-out/messageTraces.txt" "$d/kieker-out/messageTraces.txt"; then
			ok "$name: trace-analysis (TraceAnalysisToolMain): $rec, same execution and message traces"
		else
			bad "$name: trace-analysis (TraceAnalysisToolMain): '$rec'; $(grep -m3 -E '^(WARN|ERROR)|incomplete' "$d/ta.err" | cut -c1-200)"
		fi
	fi

	# Chrome
	if ! "$ANALYZE" export --chrome "$d/trace.json" "$d/run.emp" 2>"$d/export.err"; then
		bad "$name: export --chrome: $(cat "$d/export.err")"
		return
	fi
	if python3 "$TOOLS/check_exports.py" chrome "$d/trace.json" "${against[@]}" >"$d/chrome.cmp"; then
		ok "$name: $(tail -n 1 "$d/chrome.cmp")"
	else
		bad "$name: $(head -n 5 "$d/chrome.cmp" | tr '\n' ' ')"
	fi
}

# ExportProbe's exact calls for T threads and N iterations (see ExportProbe.java)
probe_expect() {
	local t=$1 n=$2 p=empcheck.ExportProbe
	cat <<EOF
$p.<clinit> 1
$p.main 1
$p.exitInside 1
$p.deeper 1
$p\$Parker.<init> 1
$p\$Parker.run 1
$p.park 1
$p\$Worker.<init> $t
$p\$Worker.run $t
$p.worker $t
$p.<init> $((t * n))
$p.work $((5 * t * n))
$p.guarded $((t * n))
$p.fail $((3 * t * n))
@traces $((3 + t))
@threw $((3 * t * n))
@unfinished 5
EOF
}

jdks=("$JAVA")
[[ -x $JDK25/bin/java ]] && jdks+=("$JDK25/bin/java")
for jdk in "${jdks[@]}"; do
	v=$("$jdk" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	check "jdk$v-calltree-d2" "$jdk" 'emp.sut.tree.*' - -cp "$SUT" emp.sut.CallTree --depth 2 --leaf-calls 4 \
		--task-size 10 --warmup 20 --iterations 20
	check "jdk$v-calltree-d4-all" "$jdk" 'emp.sut.*' - -cp "$SUT" emp.sut.CallTree --depth 4 --leaf-calls 6 \
		--task-size 10 --warmup 10 --iterations 10
	check "jdk$v-forkjoin" "$jdk" 'emp.sut.ForkJoinFib*' - -cp "$SUT" emp.sut.ForkJoinFib --n 16 --mode fork \
		--threshold 8 --parallelism 2 --repeat 2
	check "jdk$v-probe" "$jdk" 'empcheck.*' "$(probe_expect 3 40)" -cp "$TMP/classes" empcheck.ExportProbe 3 40
done
echo "check-exports: $passed passed, $failed failed"
[[ $failed == 0 ]]
