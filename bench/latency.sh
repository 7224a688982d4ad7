#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# latency.sh - latency under load (issue 12): emp.sut.Server loaded by emp-load in its own process, open loop.
#  1. throughput: the pure server's maximum (emp-load --closed at an unreachable rate, 16 connections), and
#     emp-load's own CPU time for it (it must not be the bottleneck);
#  2. agents: at RATE (default 60 % of that maximum) with the mix cheap:70,alloc:20,cpu:10, p50/p99/p99.9/max
#     corrected and uncorrected for pure, emp sample 10 ms and 1 ms, emp trace of the routes, async-profiler
#     (cpu, 10 ms), JFR (default profile), Kieker (AspectJ, binary files) and the OpenTelemetry agent
#     (exporters none), interleaved, RUNS runs each, for every GC of GCS;
#  3. composite: the same rate from inside the server's JVM (emp.sut.Server --inproc-load) against emp-load from
#     outside, pure, for every GC of GCS — what the in-process arrangement hides.
# Usage: bench/latency.sh [--quick]        (make bench-latency)
# Knobs (env): PARTS ("throughput agents composite"), GCS ("serial g1"), HEAP (-Xmx128m), RATE (60 % of the
#   measured maximum; with PARTS lacking throughput: 1000), RUNS (3; quick 1), DURATION (20s; quick 5s), WARMUP
#   (5s; quick 2s), MIX (cheap:70,alloc:20,cpu:10), CONNECTIONS (16), THREADS (server threads, 4),
#   PEERS ("asprof jfr kieker otel"), JAVA, BUILD.
# Results: bench/results/latency-<date>/ (runs/*: emp-load CSV and --log, server output), report.md.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
bench_args "$@"
if ((quick)); then : "${RUNS:=1}" "${DURATION:=5s}" "${WARMUP:=2s}"; fi
: "${RUNS:=3}" "${DURATION:=20s}" "${WARMUP:=5s}" "${PARTS:=throughput agents composite}" "${GCS:=serial g1}"
: "${HEAP:=-Xmx128m}" "${MIX:=cheap:70,alloc:20,cpu:10}" "${CONNECTIONS:=16}" "${THREADS:=4}"
PEERS=${PEERS-asprof jfr kieker otel}
bench_init latency$( ((quick)) && echo -quick)
LOAD=$BENCH_DIR/bin/emp-load
cp "$BUILD/emp-load" "$LOAD" || bench_die "$BUILD/emp-load is missing (run make first)"
if [[ -n $PEERS ]]; then
	# shellcheck disable=SC2046
	eval "$("$HERE/lib/fetch-peers.sh" $(sed 's/jfr//; s/kieker/kieker-aspectj/' <<<"$PEERS"))" ||
		bench_die "a peer is unavailable (PEERS to choose)"
fi
echo "knobs: PARTS='$PARTS' GCS='$GCS' HEAP='$HEAP' RUNS=$RUNS DURATION=$DURATION WARMUP=$WARMUP MIX=$MIX CONNECTIONS=$CONNECTIONS THREADS=$THREADS PEERS='$PEERS'" >>"$BENCH_DIR/machine.txt"

gc_opts() { case $1 in serial) echo "-XX:+UseSerialGC" ;; g1) echo "-XX:+UseG1GC" ;; *) bench_die "GC '$1' (serial, g1)" ;; esac; }

# The agents of part 2: name and JVM options (@OUT@: the run's directory).
declare -a AGENTS=(pure) ; declare -A AGENT_ARGS=([pure]="")
agent() { AGENTS+=("$1"); AGENT_ARGS[$1]=$2; }
agent emp-sample-10ms "-agentpath:$EMP_LIB=mode=sample,interval=10ms,out=@OUT@/run.emp"
agent emp-sample-1ms "-agentpath:$EMP_LIB=mode=sample,interval=1ms,out=@OUT@/run.emp"
# The three route methods, the same ones Kieker and OpenTelemetry instrument (not Routes.build, /alloc's
# recursion: 2048 calls per request).
agent emp-trace "-agentpath:$EMP_LIB=mode=trace,include=emp.sut.server.Routes.cheap;emp.sut.server.Routes.alloc;emp.sut.server.Routes.cpu,out=@OUT@/run.emp"
[[ $PEERS == *asprof* ]] && agent asprof "-agentpath:$ASPROF_LIB=start,event=cpu,interval=10ms,collapsed,file=@OUT@/ap.collapsed"
[[ $PEERS == *jfr* ]] && agent jfr "-XX:StartFlightRecording=filename=@OUT@/run.jfr"
# Kieker: its AspectJ agent, OperationExecutionAspectFull's probe on the same three methods (a concrete aspect in
# aop.xml), binary files.  Not its ByteBuddy agent, which selects classes only: it would trace every method of
# Routes, build's recursion too.  Kieker's FileWriter writes nothing, silently, into a storage path that does not
# exist: the agents loop creates @OUT@/data.  (The AspectJ weaver of the JDK's platform loader cannot see Kieker's
# classes and says so on stderr; the application loader's weaves.)
# On a JDK its weaver cannot read (runner.sh bench_kieker_aj_usable) Kieker is left out, and machine.txt says why.
if [[ $PEERS == *kieker* ]] && ! why=$(bench_kieker_aj_usable "$KIEKER_AJ_JAR"); then
	echo "kieker: left out: $why" | tee -a "$BENCH_DIR/machine.txt" >&2
	PEERS=${PEERS//kieker/}
fi
if [[ $PEERS == *kieker* ]]; then
	cat >"$BENCH_DIR/bin/aop.xml" <<'EOF'
<!DOCTYPE aspectj PUBLIC "-//AspectJ//DTD//EN" "http://www.aspectj.org/dtd/aspectj_1_5_0.dtd">
<aspectj>
  <weaver options="-warn:none -Xlint:ignore"><include within="emp.sut.server.Routes"/></weaver>
  <aspects>
    <concrete-aspect name="emp.bench.KiekerRoutes"
        extends="kieker.monitoring.probe.aspectj.operationExecution.AbstractOperationExecutionAspect">
      <pointcut name="monitoredOperation" expression="execution(public static long emp.sut.server.Routes.cheap())
          || execution(public static long emp.sut.server.Routes.alloc()) || execution(public static long emp.sut.server.Routes.cpu())"/>
    </concrete-aspect>
  </aspects>
</aspectj>
EOF
	agent kieker "-javaagent:$KIEKER_AJ_JAR -Dorg.aspectj.weaver.loadtime.configuration=file:$BENCH_DIR/bin/aop.xml \
-Dkieker.monitoring.name=KIEKER-BENCHMARK -Dkieker.monitoring.adaptiveMonitoring.enabled=false \
-Dkieker.monitoring.periodicSensorsExecutorPoolSize=0 -Dkieker.monitoring.enabled=true \
-Dkieker.monitoring.writer=kieker.monitoring.writer.filesystem.FileWriter \
-Dkieker.monitoring.writer.filesystem.FileWriter.logStreamHandler=kieker.monitoring.writer.filesystem.BinaryLogStreamHandler \
-Dkieker.monitoring.writer.filesystem.FileWriter.customStoragePath=@OUT@/data/"
fi
[[ $PEERS == *otel* ]] && agent otel "-javaagent:$OTEL_JAR -Dotel.instrumentation.methods.include=emp.sut.server.Routes[cheap,alloc,cpu] \
-Dotel.traces.exporter=none -Dotel.metrics.exporter=none -Dotel.logs.exporter=none -Dotel.javaagent.logging=none"

SRV_PID=
# serve DIR GC ARGS...: the server in the background with the GC, the heap and ARGS; sets PORT.
serve() {
	local dir=$1 gc=$2; shift 2
	mkdir -p "$dir"
	# shellcheck disable=SC2046,SC2086
	"$JAVA" $(gc_opts "$gc") $HEAP "$@" -cp "$SUT_JAR" emp.sut.Server --port 0 --threads "$THREADS" \
		>"$dir/server.out" 2>"$dir/server.err" &
	SRV_PID=$!
	for _ in $(seq 1200); do # the OpenTelemetry agent takes 5-10 s to start here
		PORT=$(sed -n 's/^server listening port=\([0-9]*\).*/\1/p' "$dir/server.out" 2>/dev/null)
		[[ -n $PORT ]] && return 0
		kill -0 "$SRV_PID" 2>/dev/null || { echo "server died: $(tail -3 "$dir/server.err")" >&2; return 1; }
		sleep 0.05
	done
	return 1
}
unserve() { kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; SRV_PID=; }
trap '[[ -n $SRV_PID ]] && kill -9 "$SRV_PID" 2>/dev/null' EXIT

# The JVM's own pause counters, read from its hsperfdata file by jcmd (no attach, nothing runs in the server):
# "safepoints safepoint_ns gc_ns" (every collector's time; the hrt frequency is 1 GHz on Linux, checked).
JCMD=$(dirname "$(readlink -f "$(command -v "$JAVA")")")/jcmd
perfcounters() {
	"$JCMD" "$1" PerfCounter.print 2>/dev/null | awk -F= '
		$1 == "sun.os.hrt.frequency" { f = $2 } $1 == "sun.rt.safepoints" { n = $2 } $1 == "sun.rt.safepointTime" { t = $2 }
		$1 ~ /^sun\.gc\.collector\.[0-9]+\.time$/ { g += $2 }
		END { if (f == "") exit 1; printf "%d %.0f %.0f\n", n, t * 1e9 / f, g * 1e9 / f }'
}

echo "part,gc,variant,run,load1,measure,count,p50_us,p90_us,p99_us,p999_us,p9999_us,max_us,failed,safepoints,safepoint_ms,gc_ms,slow_through_gc_pct,slow_through_safepoint_pct,recorded_bytes" >"$BENCH_DIR/latency.csv"
# record PART GC VARIANT RUN CSVFILE [PAUSES [THROUGH [RECORDED]]]: emp-load's (or the in-process generator's) CSV
# into latency.csv; PAUSES "safepoints safepoint_ms gc_ms" over the measured run (hsperfdata), THROUGH "gc sp": the
# % of the requests slower than the corrected p99 that waited through a GC / other safepoint pause (emp's dump), or
# empty; RECORDED the bytes the agent wrote, or empty.
record() {
	local load1 failed p=(${6:-- - -}) t=(${7:-- -})
	load1=$(cut -d' ' -f1 /proc/loadavg)
	failed=$(awk -F, '$1 == "error" && $2 != "non_2xx" { n += $3 } END { print n + 0 }' "$5")
	awk -F, -v pre="$1,$2,$3,$4,$load1" -v f="$failed" -v post="${p[0]},${p[1]},${p[2]},${t[0]},${t[1]},${8:--}" \
		'$1 == "corrected" || $1 == "uncorrected" { print pre "," $0 "," f "," post }' "$5" >>"$BENCH_DIR/latency.csv"
}
# recorded DIR: the bytes of the files an agent wrote into its run directory DIR (its dump, JFR file, collapsed
# stacks or Kieker files), so that an agent that records nothing shows as 0.
recorded() {
	find "$1/data" "$1/run.jfr" "$1/run.emp" "$1/ap.collapsed" -type f -printf '%s\n' 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}
# pauses_delta "N0 SP0 GC0" "N1 SP1 GC1": the counts over the run, times in ms
pauses_delta() {
	local a=($1) b=($2)
	((${#a[@]} == 3 && ${#b[@]} == 3)) || return 0
	awk -v n="$((b[0] - a[0]))" -v s="$((b[1] - a[1]))" -v g="$((b[2] - a[2]))" 'BEGIN { printf "%d %.1f %.1f\n", n, s / 1e6, g / 1e6 }'
}
# slow_through LOG DUMP: "gc sp", the % of the requests slower than the corrected p99 that waited through a pause
slow_through() {
	"$EMP_ANALYZE" latency --format=csv "$1" "$2" 2>/dev/null |
		awk -F, '$1 == "gc" { g = $9; n = $8 } $1 == "safepoints" { s = $9 }
			END { if (g != "" && s != "" && n > 0) printf "%.1f %.1f\n", 100 * g / n, 100 * s / n }'
}

# ---- 1. maximum throughput ------------------------------------------------------------------------------------
if [[ $PARTS == *throughput* ]]; then
	d=$BENCH_DIR/runs/throughput
	serve "$d" g1 || bench_die "server did not start"
	"$LOAD" --target "127.0.0.1:$PORT" --rate 1000 --duration "$WARMUP" --mix "$MIX" >/dev/null
	for mix in "$MIX" cheap:100; do
		/usr/bin/time -f "%U %S %e" -o "$d/time" "$LOAD" --target "127.0.0.1:$PORT" --closed --rate 1000000 \
			--connections "$CONNECTIONS" --duration "$DURATION" --mix "$mix" >"$d/load.txt"
		n=$(awk '/answered\/s/ { for (i = 1; i <= NF; i++) if ($i == "answered/s;") print $(i - 1) }' "$d/load.txt")
		[[ $mix == "$MIX" ]] && MAX=$n
		read -r u s e <"$d/time"
		awk -v n="$n" -v u="$u" -v s="$s" -v e="$e" -v mix="$mix" -v c="$CONNECTIONS" 'BEGIN {
			printf "throughput: %s answered/s (closed loop, %s connections, mix %s, G1); emp-load CPU %.0f %% of one core, %.1f us per request\n",
				n, c, mix, 100 * (u + s) / e, (u + s) / (n * e) * 1e6 }' | tee -a "$BENCH_DIR/throughput.txt"
	done
	unserve
	: "${RATE:=$(awk -v m="$MAX" 'BEGIN { printf "%d", m * 0.6 }')}"
fi
: "${RATE:=1000}"
echo "rate: $RATE req/s" | tee -a "$BENCH_DIR/throughput.txt"

# ---- 2. agents, interleaved -----------------------------------------------------------------------------------
if [[ $PARTS == *agents* ]]; then
	for run in $(seq "$RUNS"); do
		for gc in $GCS; do
			for a in "${AGENTS[@]}"; do
				d=$BENCH_DIR/runs/agents-$gc-$a-$run
				mkdir -p "$d/data"
				# shellcheck disable=SC2086
				serve "$d" "$gc" ${AGENT_ARGS[$a]//@OUT@/$d} || { echo "skip $a: no server" >&2; unserve; continue; }
				"$LOAD" --target "127.0.0.1:$PORT" --rate "$RATE" --duration "$WARMUP" --mix "$MIX" >/dev/null
				p0=$(perfcounters "$SRV_PID")
				"$LOAD" --target "127.0.0.1:$PORT" --rate "$RATE" --duration "$DURATION" --mix "$MIX" \
					--connections "$CONNECTIONS" --format csv --log "$d/requests.csv" >"$d/load.csv"
				p1=$(perfcounters "$SRV_PID")
				unserve
				through=
				[[ -s $d/run.emp ]] && through=$(slow_through "$d/requests.csv" "$d/run.emp")
				bytes=- # pure, and OpenTelemetry with its exporters off, write nothing by design
				if [[ $a != pure && $a != otel ]]; then
					bytes=$(recorded "$d")
					((bytes > 0)) || echo "agents $gc $a run $run: the agent recorded nothing" >&2
				fi
				record agents "$gc" "$a" "$run" "$d/load.csv" "$(pauses_delta "$p0" "$p1")" "$through" "$bytes"
				rm -rf "$d/data" "$d/run.jfr" "$d/run.emp" "$d/ap.collapsed"
				echo "agents $gc $a run $run: $(awk -F, '$1 == "corrected" { print "p99", $5, "us corrected" }' "$d/load.csv")"
			done
		done
	done
fi

# ---- 3. composite (in-process generator) against emp-load from outside ----------------------------------------
if [[ $PARTS == *composite* ]]; then
	for run in $(seq "$RUNS"); do
		for gc in $GCS; do
			d=$BENCH_DIR/runs/composite-$gc-inproc-$run
			mkdir -p "$d"
			# shellcheck disable=SC2046,SC2086
			"$JAVA" $(gc_opts "$gc") $HEAP -cp "$SUT_JAR" emp.sut.Server --port 0 --threads "$THREADS" \
				--inproc-load "$RATE" --warmup "$WARMUP" --duration "$DURATION" --mix "$MIX" \
				--connections "$CONNECTIONS" >"$d/server.out"
			sed -n '/^measure,/,/^error,unfinished/p' "$d/server.out" >"$d/load.csv"
			record composite "$gc" inproc "$run" "$d/load.csv"
			d=$BENCH_DIR/runs/composite-$gc-external-$run
			serve "$d" "$gc" -agentpath:"$EMP_LIB"=mode=off,out="$d/gc.emp" || bench_die "server did not start"
			"$LOAD" --target "127.0.0.1:$PORT" --rate "$RATE" --duration "$WARMUP" --mix "$MIX" >/dev/null
			p0=$(perfcounters "$SRV_PID")
			"$LOAD" --target "127.0.0.1:$PORT" --rate "$RATE" --duration "$DURATION" --mix "$MIX" \
				--connections "$CONNECTIONS" --format csv --log "$d/requests.csv" >"$d/load.csv"
			p1=$(perfcounters "$SRV_PID")
			unserve
			record composite "$gc" emp-load "$run" "$d/load.csv" "$(pauses_delta "$p0" "$p1")" \
				"$(slow_through "$d/requests.csv" "$d/gc.emp")"
			"$EMP_ANALYZE" latency "$d/requests.csv" "$d/gc.emp" -o "$d/latency.svg" >"$d/latency.txt" 2>&1
		done
	done
fi

# ---- report ---------------------------------------------------------------------------------------------------
{
	echo "## latency ($(date -u +%Y-%m-%d), $(sed -n 's/^java: //p' "$BENCH_DIR/machine.txt"))"
	echo
	cat "$BENCH_DIR/throughput.txt"
	echo
	python3 - "$BENCH_DIR/latency.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def opt(rs, c):
    """The median of an optional column over the corrected rows, or a dash where no run has it."""
    xs = [float(r[c]) for r in rs if r["measure"] == "corrected" and r.get(c, "-") not in ("-", "", None)]
    if not xs:
        return "–"
    m = statistics.median(xs)
    return f"{m:.0f}" if c == "safepoints" else f"{m / 1e6:.1f}" if c == "recorded_bytes" else f"{m:.1f}"
keys = []
for r in rows:
    k = (r["part"], r["gc"], r["variant"])
    if k not in keys:
        keys.append(k)
print("Median over runs, µs (corrected = from the due time; uncorrected = from the write); load = median 1-min load.")
print("safepoints, sp ms, gc ms: the JVM's own counters over the measured run (hsperfdata, read by jcmd from outside),")
print("all safepoints (GC included), their total time, and the collectors' time; slow via gc / sp: the % of the")
print("requests slower than the corrected p99 that waited through a GC pause / another safepoint pause (emp's dump:")
print("emp variants and the composite external run only); recorded MB: what the agent wrote (0: it recorded")
print("nothing, and its row measures an idle agent).  Every run follows a WARMUP of the same load.")
print()
print("| part | gc | variant | runs | p50 corr | p99 corr | p99.9 corr | max corr | p50 unc | p99 unc | p99.9 unc | failed "
      "| safepoints | sp ms | gc ms | slow via gc % | slow via sp % | recorded MB | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in keys:
    rs = [r for r in rows if (r["part"], r["gc"], r["variant"]) == k]
    med = lambda m, c: int(statistics.median(int(r[c]) for r in rs if r["measure"] == m))
    n = sum(r["measure"] == "corrected" for r in rs)
    fail = sum(int(r["failed"]) for r in rs if r["measure"] == "corrected")
    load = statistics.median(float(r["load1"]) for r in rs)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {n} | {med('corrected', 'p50_us')} | {med('corrected', 'p99_us')} | "
          f"{med('corrected', 'p999_us')} | {med('corrected', 'max_us')} | {med('uncorrected', 'p50_us')} | "
          f"{med('uncorrected', 'p99_us')} | {med('uncorrected', 'p999_us')} | {fail} | {opt(rs, 'safepoints')} | "
          f"{opt(rs, 'safepoint_ms')} | {opt(rs, 'gc_ms')} | {opt(rs, 'slow_through_gc_pct')} | "
          f"{opt(rs, 'slow_through_safepoint_pct')} | {opt(rs, 'recorded_bytes')} | {load:.1f} |")
# The seed's comparison: the composite harness timed from the send, in-process; the truth from outside.
for gc in dict.fromkeys(r["gc"] for r in rows if r["part"] == "composite"):
    def p99(v, m):
        xs = [int(r["p99_us"]) for r in rows if (r["part"], r["gc"], r["variant"], r["measure"]) == ("composite", gc, v, m)]
        return statistics.median(xs) if xs else float("nan")
    inproc, outside = p99("inproc", "uncorrected"), p99("emp-load", "corrected")
    print(f"\ncomposite, {gc}: p99 in-process from the send (as the composite harness reports) {inproc / 1e3:.1f} ms, "
          f"from outside from the due time (emp-load corrected) {outside / 1e3:.1f} ms: {outside / inproc:.1f}x")
PY
	echo
	echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$BENCH_DIR/report.md"
echo "results: $BENCH_DIR"
