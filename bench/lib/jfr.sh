# SPDX-License-Identifier: MIT
# jfr.sh - JFR's method timing and method tracing (JEP 520, JDK 25: jdk.MethodTiming, jdk.MethodTrace) as peers of
# emp trace mode; sourced by bench scripts after runner.sh.
#   jfr_methods                    true when JAVA (default java) is JDK 25+ and its `jfr` tool is there
#   jfr_variant NAME FILTER        bench_variant NAME (jfr-timing or jfr-trace) recording the methods FILTER names
#                                  (JFR's filter syntax: Class or Class::method, ;-separated; classes, not packages)
#   jfr_calls OUTDIR               "calls N": jdk.MethodTrace events, or jdk.MethodTiming's invocations summed
JFR_TOOL=$(dirname "$(readlink -f "$(command -v "${JAVA:-java}")")")/jfr
jfr_methods() {
	local v
	v=$("${JAVA:-java}" -XshowSettings:properties -version 2>&1 | awk '$1 == "java.specification.version" { print $3 }')
	[[ -x $JFR_TOOL && ${v%%.*} =~ ^[0-9]+$ ]] && ((${v%%.*} >= 25))
}
jfr_variant() {
	local v=$1 filter=$2 event extra
	jfr_methods || bench_die "$v needs JFR method tracing (JDK 25+); JAVA is $(command -v "${JAVA:-java}")"
	if [[ $v == jfr-timing ]]; then
		event=jdk.MethodTiming extra=("+$event#period=endChunk")
	else
		event=jdk.MethodTrace extra=("+$event#stackTrace=false" "+$event#threshold=0 ms")
	fi
	"$JFR_TOOL" configure --input none --output "$BENCH_DIR/bin/$v.jfc" "+$event#enabled=true" \
		"+$event#filter=$filter" "${extra[@]}" >/dev/null || bench_die "jfr configure failed for $v"
	# maxsize=0: JFR's default 250 MB cap drops the oldest chunks of a long trace (1.7 M of 111 M calls kept);
	# its startup lines would otherwise go to stdout, which must equal the pure run's (only =off silences them).
	bench_variant "$v" "-Xlog:jfr+startup=off -XX:StartFlightRecording:settings=$BENCH_DIR/bin/$v.jfc,filename=@OUT@/data/run.jfr,maxsize=0"
}
jfr_calls() {
	local rec=$1/data/run.jfr n
	if [[ $1 == *jfr-timing* ]]; then
		n=$("$JFR_TOOL" print --events jdk.MethodTiming "$rec" | awk '$1 == "invocations" { s += $3 } END { print s + 0 }')
	else
		n=$("$JFR_TOOL" summary "$rec" | awk '$1 == "jdk.MethodTrace" { print $2 }')
	fi
	echo "calls $n"
}
