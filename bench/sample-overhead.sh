#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sample-overhead.sh - overhead of emp's sample mode at 1, 10 and 20 ms against pure runs, side by side with
# async-profiler (cpu engine) and JFR (jdk.ExecutionSample only) at the same intervals, on CallTree and MooBench.
# Interleaved runs, one JVM per run; see bench/README.md for the method and the results.
#
# Usage: bench/sample-overhead.sh [--quick]        (make bench-sample-overhead)
# Knobs (env): VMS (8; quick 2), INTERVALS ("1 10 20"; quick "10"), CT_DEPTH (4), CT_WARMUP (1000; quick 500),
#   CT_ITERATIONS (4000; quick 1000), MOO_CALLS (10000000; quick 2000000), MOO_DEPTH (10),
#   PEERS ("asprof jfr"; "" for emp alone), WORKLOADS ("calltree moobench"), JAVA, PIN, KEEP_RAW, BUILD.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
bench_args "$@"
if ((quick)); then
	: "${VMS:=2}" "${INTERVALS:=10}" "${CT_WARMUP:=500}" "${CT_ITERATIONS:=1000}" "${MOO_CALLS:=2000000}"
fi
: "${VMS:=8}" "${INTERVALS:=1 10 20}" "${CT_DEPTH:=4}" "${CT_WARMUP:=1000}" "${CT_ITERATIONS:=4000}"
: "${MOO_CALLS:=10000000}" "${MOO_DEPTH:=10}" "${PEERS-asprof jfr}" "${WORKLOADS:=calltree moobench}"
PEERS=${PEERS-asprof jfr}
bench_init sample-overhead$( ((quick)) && echo -quick)
if [[ $PEERS == *asprof* ]]; then
	eval "$("$HERE/lib/fetch-peers.sh" asprof)" || bench_die "async-profiler unavailable (PEERS=jfr to skip it)"
	echo "async-profiler: $ASPROF_VERSION ($ASPROF_LIB)" >>"$BENCH_DIR/machine.txt"
fi
echo "knobs: VMS=$VMS INTERVALS='$INTERVALS' CT_DEPTH=$CT_DEPTH CT_WARMUP=$CT_WARMUP CT_ITERATIONS=$CT_ITERATIONS MOO_CALLS=$MOO_CALLS MOO_DEPTH=$MOO_DEPTH PEERS='$PEERS'" \
	>>"$BENCH_DIR/machine.txt"

# Samples each run took, for the "count/run" column (how close each tool came to the asked rate).
bench_count_emp() {
	"$EMP_ANALYZE" info --format=csv "$1/run.emp" | awk -F, '$1 == "events" && $3 == "sample" { print "samples", $4 }'
}
bench_count_ap() {
	awk '{ n += $NF } END { print "samples", n + 0 }' "$1/ap.collapsed"
}
bench_count_jfr() {
	"$(dirname "$(readlink -f "$(command -v "$JAVA")")")/jfr" summary "$1/run.jfr" |
		awk '$1 == "jdk.ExecutionSample" { print "samples", $2 }'
	rm -f "$1/run.jfr"
}

bench_variant pure ""
bench_variant pure-b ""
for i in $INTERVALS; do
	bench_variant "emp-${i}ms" "-agentpath:$EMP_LIB=mode=sample,interval=${i}ms,out=@OUT@/run.emp"
	[[ $PEERS == *asprof* ]] &&
		bench_variant "ap-${i}ms" "-agentpath:$ASPROF_LIB=start,event=cpu,interval=${i}ms,collapsed,file=@OUT@/ap.collapsed"
	[[ $PEERS == *jfr* ]] &&
		bench_variant "jfr-${i}ms" "-XX:StartFlightRecording=settings=$(bench_jfr_settings "$i ms"),filename=@OUT@/run.jfr"
done
for w in $WORKLOADS; do
	case $w in
	calltree) bench_config calltree "$CT_DEPTH" 0 emp.sut.CallTree --depth "$CT_DEPTH" --warmup "$CT_WARMUP" \
		--iterations "$CT_ITERATIONS" ;;
	moobench) bench_config moobench "$MOO_DEPTH" 0.5 emp.sut.MooBench --calls "$MOO_CALLS" --depth "$MOO_DEPTH" ;;
	*) bench_die "unknown workload '$w' (calltree, moobench)" ;;
	esac
done
bench_run "$VMS"
{
	echo "## sample-overhead ($(date -u +%Y-%m-%d), $(cat "$BENCH_DIR/machine.txt" | sed -n 's/^java: //p'))"
	echo
	echo "Per-iteration time (CallTree: one runIteration; MooBench: one top-level call, second half only)."
	echo
	python3 "$HERE/lib/stats.py" overhead "$BENCH_DIR/manifest.csv"
	echo
	echo "Samples per second of process CPU time (user + sys of the whole JVM, median over its runs; the asked rate is"
	echo "per second of a sampled thread's CPU time, so JIT and GC time lower these figures a little)."
	echo
	python3 - "$BENCH_DIR/manifest.csv" <<'PY'
import csv, re, statistics, sys
rates = {}
for r in csv.DictReader(open(sys.argv[1])):
    cpu = float(r["user_s"] or 0) + float(r["sys_s"] or 0)
    if r["count_name"] == "samples" and r["count"] and cpu > 0:
        rates.setdefault((r["workload"], r["variant"]), []).append(int(r["count"]) / cpu)
print("| workload | variant | asked/s | samples/s (median) | of asked |")
print("|---|---|---|---|---|")
for (w, v), xs in rates.items():
    m = re.search(r"-(\d+)ms$", v)
    asked = 1000 / int(m.group(1)) if m else 0
    med = statistics.median(xs)
    print(f"| {w} | {v} | {asked:.0f} | {med:.1f} | {100 * med / asked:.0f} % |" if asked else f"| {w} | {v} | – | {med:.1f} | – |")
PY
	echo
	sed 's/^/    /' "$BENCH_DIR/machine.txt"
} | tee "$BENCH_DIR/report.md"
