#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyzer.sh - emp-analyze on a synthetic trace dump of N_EVENTS events (bench/lib/gendump.c: the agent's own
# encoder, several threads, a few thousand methods, chunks cut like the agent's): events/s and peak memory (max
# RSS from /usr/bin/time; events per second of wall time and per second of CPU time, user + system) of calls, calls --check, tree, top, flame, collapsed and info, one table row each.
#
# Usage: bench/analyzer.sh                 (make bench-analyzer)
# Knobs (env): N_EVENTS (1000000000), THREADS (4), METHODS (3000), RUNS (1: runs per command, the median wall
#   time is reported), JOBS (the analyzer --jobs values to compare, "1 all"),
#   DUMP (build/bench/analyzer-<N_EVENTS>.emp; generated when missing or older than the generator, kept for the next run; one you give is never touched), BUILD (build).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
: "${BUILD:=build}" "${N_EVENTS:=1000000000}" "${THREADS:=4}" "${METHODS:=3000}" "${RUNS:=1}" "${JOBS:=1 all}"
cd "$ROOT" || exit 1
AN=$BUILD/emp-analyze
[[ -x $AN ]] || { echo "bench-analyzer: $AN missing (run make)" >&2; exit 1; }
mkdir -p "$BUILD/bench"
GEN=$BUILD/bench/gendump
stale=0
for src in bench/lib/gendump.c dump/dump_writer.c dump/dump_writer.h dump/varint.h; do
	[[ $src -nt $GEN ]] && stale=1
done
if [[ ! -x $GEN || $stale == 1 ]]; then
	${CC:-cc} -O2 -std=c11 -Wall -Wextra -Idump -o "$GEN" bench/lib/gendump.c dump/dump_writer.c -llz4 ||
		{ echo "bench-analyzer: cannot compile bench/lib/gendump.c" >&2; exit 1; }
fi
# The default dump is made again when the generator changed (the writer's framing with it); one given as DUMP is
# never touched.
if [[ -z ${DUMP:-} ]]; then
	DUMP=$BUILD/bench/analyzer-$N_EVENTS.emp
	[[ $GEN -nt $DUMP ]] && rm -f "$DUMP"
fi
if [[ ! -s $DUMP ]]; then
	echo "generating $DUMP ($N_EVENTS events, $THREADS threads, $METHODS methods)..." >&2
	t0=$(date +%s.%N)
	"$GEN" "$DUMP.tmp" "$N_EVENTS" "$THREADS" "$METHODS" >/dev/null && mv "$DUMP.tmp" "$DUMP" ||
		{ echo "bench-analyzer: generating $DUMP failed" >&2; rm -f "$DUMP.tmp"; exit 1; }
	echo "generated in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2
fi
events=$("$AN" info --format=csv "$DUMP" | awk -F, '$1=="table"&&$2=="file"{for(i=1;i<=NF;i++)if($i=="events")c=i;next} $1=="files"&&c{print $c;exit}')
size=$(stat -c %s "$DUMP")
echo "dump: $DUMP, $size bytes ($(echo "scale=2; $size / $events" | bc) bytes/event), $events events"
echo "machine: $(nproc) online CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
run() { # run NAME ARGS...: median wall time over RUNS, the largest max RSS
	local name=$1 walls=() rss=0 out
	shift
	for ((k = 0; k < RUNS; k++)); do
		/usr/bin/time -o "$BUILD/bench/time.txt" -f '%e %M %U %S' "$@" >/dev/null 2>&1
		out=$(tail -1 "$BUILD/bench/time.txt")
		walls+=("${out%% *}")
		local m=$(echo "$out" | cut -d' ' -f2)
		((m > rss)) && rss=$m
		cpu=$(echo "$out" | awk '{print $3 + $4}')
	done
	local wall=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	printf '| %-22s | %7s | %7s | %10s | %14s | %10s |\n' "$name" "$wall" "$cpu" \
		"$(echo "$events / $wall / 1000000" | bc)" "$(echo "$events / $cpu / 1000000" | bc)" "$((rss / 1024))"
}
echo "| command                | wall s  | cpu s   | M events/s | M events/cpu-s | max RSS MB |"
echo "|---|---|---|---|---|---|"
for j in $JOBS; do
	jo=(--jobs "$j"); sfx=" --jobs $j"
	run "calls$sfx" "$AN" calls "${jo[@]}" "$DUMP"
	run "calls --check$sfx" "$AN" calls --check "${jo[@]}" "$DUMP"
	run "tree$sfx" "$AN" tree "${jo[@]}" "$DUMP"
	run "top$sfx" "$AN" top "${jo[@]}" "$DUMP"
	run "flame$sfx" "$AN" flame "${jo[@]}" "$DUMP" -o /dev/null
	run "collapsed$sfx" "$AN" collapsed "${jo[@]}" "$DUMP"
	run "info$sfx" "$AN" info "${jo[@]}" "$DUMP"
done
