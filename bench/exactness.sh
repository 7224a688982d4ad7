#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# exactness.sh - the ICPE'26 exactness experiment (design.md §5, the paper's Figure 6): how many VMs per version
# does each measurement mode need to detect a change of Δ in CallTree's slow leaf with F1 > 98 %?
# CallTree depths × Δ (and Δ = 0, the base) in modes pure, trace (every tree method) and sample at 1/10/20 ms,
# all with iteration=emp.sut.CallTree.runIteration; VMs interleaved over every configuration and mode (runner.sh:
# CPU and wall time per run, busy runs flagged); then `emp-analyze exactness` per depth, mode and Δ on the slow leaf
# D<d>.leaf_0 and on runIteration, writing heatmaps and grids, and the table of required VMs.  Pure mode (no agent)
# is the reference row: its per-VM values come from the SUT's own timing files (java-sut --timings, one row per
# measured iteration, no warm-up rows), whose one node is the iteration, named runIteration here so the row lines
# up with the others; it has no leaf figure.
#
# Usage: bench/exactness.sh [--quick | --full]      (make bench-exactness BENCH_ARGS=--quick)
#   default  depths 2 4 6 8, Δ 1..5 %, 15 VMs per version and mode  (~1 hour on 2 cores)
#   --full   the paper's 100 VMs per version (~7 hours)
#   --quick  depths 2 4, Δ 5 %, modes trace and sample 1 ms, 6 VMs, 300+300 iterations (a few minutes)
# Knobs (env): VMS, DEPTHS, DELTAS, MODES ("pure trace s1 s10 s20"), WARMUP (1000), ITERS (1000), LEAF_CALLS (300),
#   RESAMPLES (1000), SEED (1), METRIC (wall: the iteration node's value in the dump modes; cpu: its thread CPU
#   time, emp-analyze --metric), plus runner.sh's JAVA, PIN, BENCH_FLAG_RATIO, BENCH_RESULTS.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
full=0
args=()
for a in "$@"; do
	if [[ $a == --full ]]; then full=1; else args+=("$a"); fi
done
bench_args "${args[@]}"
((quick && full)) && { echo "exactness.sh: --quick and --full exclude each other" >&2; exit 2; }
if ((quick)); then
	: "${VMS:=6}" "${DEPTHS:=2 4}" "${DELTAS:=0.05}" "${MODES:=trace s1}" "${WARMUP:=300}" "${ITERS:=300}"
fi
((full)) && : "${VMS:=100}"
: "${VMS:=15}" "${DEPTHS:=2 4 6 8}" "${DELTAS:=0.01 0.02 0.03 0.04 0.05}" "${MODES:=pure trace s1 s10 s20}"
: "${WARMUP:=1000}" "${ITERS:=1000}" "${LEAF_CALLS:=300}" "${RESAMPLES:=1000}" "${SEED:=1}"
bench_init exactness$( ((quick)) && echo -quick)$( ((full)) && echo -full)
echo "knobs: VMS=$VMS DEPTHS='$DEPTHS' DELTAS='$DELTAS' MODES='$MODES' WARMUP=$WARMUP ITERS=$ITERS LEAF_CALLS=$LEAF_CALLS RESAMPLES=$RESAMPLES SEED=$SEED" \
	>>"$BENCH_DIR/machine.txt"

ITER=iteration=emp.sut.CallTree.runIteration
# The runner deletes every run's timings.csv once reduced (unless KEEP_RAW=1); a pure run's timing file is its
# data for `exactness`, so this hook (runner.sh calls bench_count_pure after each pure run) keeps a copy and
# reports its row count.
bench_count_pure() {
	cp "$1/timings.csv" "$1/pure-timings.csv" && echo "iterations $(($(wc -l <"$1/pure-timings.csv") - 1))"
}
for m in $MODES; do
	case $m in
	pure) bench_variant pure "" ;;
	trace) bench_variant trace "-agentpath:$EMP_LIB=mode=trace,include=emp.sut.tree.*,$ITER,out=@OUT@/run.emp" ;;
	s[0-9]*) bench_variant "$m" "-agentpath:$EMP_LIB=mode=sample,interval=${m#s}ms,$ITER,out=@OUT@/run.emp" ;;
	*) bench_die "unknown mode '$m' (pure trace s1 s10 s20)" ;;
	esac
done
for d in $DEPTHS; do
	for x in 0 $DELTAS; do
		bench_config "ct-d$d-x$x" "$d" 0 emp.sut.CallTree --depth "$d" --delta "$x" --leaf-calls "$LEAF_CALLS" \
			--warmup "$WARMUP" --iterations "$ITERS"
	done
done
bench_run "$VMS"

# One directory of dumps (pure: timing files) per depth, mode and Δ for `exactness`.
for d in $DEPTHS; do
	for m in $MODES; do
		file=run.emp ext=emp
		[[ $m == pure ]] && file=pure-timings.csv ext=csv
		for x in 0 $DELTAS; do
			set_dir=$BENCH_DIR/sets/d$d/$m/x$x
			mkdir -p "$set_dir"
			for r in "$BENCH_DIR"/runs/ct-d$d-x$x-$m-vm*/$file; do
				[[ -f $r ]] && ln -s "$r" "$set_dir/$(basename "$(dirname "$r")").$ext"
			done
		done
	done
done

# exactness per depth, mode and Δ; the required VMs of the slow leaf and of runIteration (pure: the iteration as
# the SUT times it; its timing files hold no warm-up rows) at all ITERS iterations into table.csv.
echo "depth,mode,delta,node,required_vms,f1_at_max_vms,max_vms" >"$BENCH_DIR/table.csv"
n=0
for d in $DEPTHS; do
	for m in $MODES; do
		if [[ $m == pure ]]; then
			sel=(--warmup 0 --iteration-name emp.sut.CallTree.runIteration)
		else
			sel=(--warmup "$WARMUP" --nodes "emp.sut.CallTree.runIteration,emp.sut.tree.D$d.leaf_0"
				--metric "${METRIC:-wall}")
		fi
		for x in $DELTAS; do
			n=$((n + 1))
			printf '\r\033[Kbench: exactness depth %s %s delta %s' "$d" "$m" "$x" >&2
			out=$BENCH_DIR/exactness/d$d-$m-x$x
			mkdir -p "$out"
			"$EMP_ANALYZE" exactness --base "$BENCH_DIR/sets/d$d/$m/x0" --new "$BENCH_DIR/sets/d$d/$m/x$x" \
				"${sel[@]}" --iterations "$ITERS" --resamples "$RESAMPLES" --seed "$SEED" --max-vms "$VMS" \
				--csv "$out/grid.csv" -o "$out/heatmap.svg" --format=csv >"$out/required.csv" 2>"$out/stderr.txt" ||
				echo "exactness d$d $m x$x failed: $(head -2 "$out/stderr.txt")" >&2
			awk -F, -v d="$d" -v m="$m" -v x="$x" 'NR > 1 {
				node = $1; sub(/.*;/, "", node)
				print d "," m "," x "," node "," $3 "," $4 "," $5 }' "$out/required.csv" >>"$BENCH_DIR/table.csv"
		done
	done
done
printf '\r\033[Kbench: %d exactness grids in %s/exactness\n' "$n" "$BENCH_DIR" >&2

{
	echo "## exactness ($(date -u +%Y-%m-%d), $(sed -n 's/^java: //p' "$BENCH_DIR/machine.txt"))"
	echo
	echo "VMs per version needed for F1 > 98 % (test mwu, alpha 0.01, $RESAMPLES resamples, $ITERS measurement"
	echo "iterations per VM after $WARMUP warm-up, at most $VMS VMs: '>$VMS' = not reached).  Node: the slow leaf"
	echo "D<d>.leaf_0 (runIteration in parentheses; pure: no agent, the SUT's own time of runIteration only)."
	echo
	printf '| depth | mode |'
	for x in $DELTAS; do printf ' Δ %s %% |' "$(awk -v x="$x" 'BEGIN { print x * 100 }')"; done
	echo
	printf '|---|---|'
	for x in $DELTAS; do printf -- '---|'; done
	echo
	for d in $DEPTHS; do
		for m in $MODES; do
			printf '| %s | %s |' "$d" "$m"
			for x in $DELTAS; do
				awk -F, -v d="$d" -v m="$m" -v x="$x" -v k="$VMS" '
					$1 == d && $2 == m && $3 == x { v = $5 == "" ? ">" k : $5
						if ($4 ~ /leaf_0$/) leaf = v; else root = v }
					END { printf " %s (%s) |", leaf == "" ? "–" : leaf, root }' "$BENCH_DIR/table.csv"
			done
			echo
		done
	done
	echo
	echo "Runs: $(awk -F, 'NR > 1 { n++; if ($12 == "busy") b++; if ($12 == "failed") f++ }
		END { printf "%d, %d flagged busy (CPU/wall < %s), %d failed", n, b, "'"$BENCH_FLAG_RATIO"'", f }' "$BENCH_DIR/manifest.csv")."
	echo "Heatmaps: exactness/d<depth>-<mode>-x<delta>/heatmap.svg; grids: grid.csv beside them."
	echo
	sed 's/^/    /' "$BENCH_DIR/machine.txt"
} | tee "$BENCH_DIR/report.md"
