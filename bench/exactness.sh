#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# exactness.sh - the ICPE'26 exactness experiment (design.md §5, the paper's Figure 6): how many VMs per version
# does each measurement mode need to detect a change of Δ in CallTree's slow leaf with F1 > 98 %?
# One emp-run experiment (README "Compare two versions of my program"): versions d<d>-x<Δ> = java-sut's
# emp.sut.CallTree at each depth and Δ (Δ = 0 the base; the change is `--delta`: the slow leaf D<d>.leaf_0 does
# Δ more work), modes pure (no agent), trace (every tree method) and sample at 1/10/20 ms, all with
# iteration=emp.sut.CallTree.runIteration, interleaved by emp-run (EMP protocol: process/elapsed time per run,
# disturbed runs flagged and rerun once).  Then `emp-analyze exactness` per depth, mode and Δ on the slow leaf and
# on runIteration (pure: the run's process time from runs.csv, node `run`), writing heatmaps, grids, table.csv
# and report.md.  Interrupted?  `bash bench/exactness.sh --resume bench/results/exactness-…` runs what is
# missing (emp-run resume: never a finished run twice) and the analysis again; the analysis knobs METRIC,
# DROP_DISTURBED and RESAMPLES set in the environment then override the recorded ones (the same runs, another
# metric: table.csv and report.md are rewritten).
#
# Usage: bench/exactness.sh [--quick | --full | --resume RESULT_DIR]   (make bench-exactness BENCH_ARGS=--quick)
#   default  depths 2 4 6 8, Δ 1..5 %, 15 VMs per version and mode, local executor
#   --full   the paper at scale (issue 13 §6): depth 8, Δ 1..5 %, pure/trace/s1, 30 VMs, through Slurm
#            (emp-run --executor slurm; `scripts/slurm-local.sh start` as root brings up a one-node Slurm)
#   --quick  depths 2 4, Δ 5 %, modes trace and sample 1 ms, 6 VMs, 300+300 iterations (a few minutes)
# Knobs (env): VMS, DEPTHS, DELTAS, MODES ("pure trace s1 s10 s20"), WARMUP (1000), ITERS (1000), LEAF_CALLS (300),
#   RESAMPLES (1000), SEED (1), METRIC (cpu: the iteration node's thread CPU time; wall: its wall time — see
#   bench/README.md for why cpu), DROP_DISTURBED (empty: off; F: emp-analyze --drop-disturbed=F), EXECUTOR
#   (local; slurm with --full), PARALLEL (1), RERUN (1, emp-run --rerun-disturbed), JAVA, BENCH_RESULTS.
set -uo pipefail
BENCH_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$BENCH_ROOT/build}
die() { echo "exactness.sh: $*" >&2; exit 2; }
quick=0 full=0 resume=
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--full) full=1 ;;
	--resume) [[ $# -ge 2 ]] || die "--resume needs the result directory"; resume=$2; shift ;;
	-h | --help) sed -n '3,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
	shift
done
((quick && full)) && die "--quick and --full exclude each other"

if [[ -n $resume ]]; then
	[[ -f $resume/knobs.sh && -d $resume/exp ]] || die "$resume is not an exactness.sh result directory"
	BENCH_DIR=$(cd "$resume" && pwd)
	# shellcheck source=/dev/null
	. "$BENCH_DIR/knobs.sh"
	"$BENCH_DIR/bin/emp-run" resume "$BENCH_DIR/exp"
	[[ $EXECUTOR == slurm ]] && "$BENCH_DIR/bin/emp-run" wait "$BENCH_DIR/exp"
else
	if ((quick)); then
		: "${VMS:=6}" "${DEPTHS:=2 4}" "${DELTAS:=0.05}" "${MODES:=trace s1}" "${WARMUP:=300}" "${ITERS:=300}"
	fi
	if ((full)); then
		: "${VMS:=30}" "${DEPTHS:=8}" "${MODES:=pure trace s1}" "${EXECUTOR:=slurm}"
	fi
	: "${VMS:=15}" "${DEPTHS:=2 4 6 8}" "${DELTAS:=0.01 0.02 0.03 0.04 0.05}" "${MODES:=pure trace s1 s10 s20}"
	: "${WARMUP:=1000}" "${ITERS:=1000}" "${LEAF_CALLS:=300}" "${RESAMPLES:=1000}" "${SEED:=1}" "${METRIC:=cpu}"
	: "${DROP_DISTURBED:=}" "${EXECUTOR:=local}" "${PARALLEL:=1}" "${RERUN:=1}" "${JAVA:=java}"
	[[ $METRIC == wall || $METRIC == cpu ]] || die "METRIC must be wall or cpu, not '$METRIC'"
	for m in $MODES; do
		[[ $m =~ ^(pure|trace|s[0-9]+)$ ]] || die "unknown mode '$m' (pure trace s1 s10 s20)"
	done
	name=exactness$( ((quick)) && echo -quick)$( ((full)) && echo -full)
	BENCH_DIR=${BENCH_RESULTS:-$BENCH_ROOT/bench/results}/$name-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$BENCH_DIR/bin" || die "cannot create $BENCH_DIR"
	# A snapshot of the build: a rebuild during a long run cannot change what is measured (emp-run finds
	# libemp.so next to itself).
	for f in libemp.so emp-analyze emp-run java-sut.jar; do
		[[ -f $BUILD/$f ]] || die "$BUILD/$f is missing (run make first)"
		cp "$BUILD/$f" "$BENCH_DIR/bin/$f"
	done
	for v in VMS DEPTHS DELTAS MODES WARMUP ITERS LEAF_CALLS RESAMPLES SEED METRIC DROP_DISTURBED EXECUTOR; do
		printf ': "${%s=%s}"\n' "$v" "${!v}"
	done >"$BENCH_DIR/knobs.sh"
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "host: $(uname -srm), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
		echo "java: $("$JAVA" -version 2>&1 | head -2 | tr '\n' ' ')"
		echo "emp: $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null)"
		echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "knobs: $(tr '\n' ' ' <"$BENCH_DIR/knobs.sh")"
	} >"$BENCH_DIR/machine.txt"
	echo "bench: results in $BENCH_DIR" >&2
	run=("$BENCH_DIR/bin/emp-run" --out "$BENCH_DIR/exp" --vms "$VMS" --iteration emp.sut.CallTree.runIteration
		--warmup "$WARMUP" --seed "$SEED" --rerun-disturbed "$RERUN" --executor "$EXECUTOR" --parallel "$PARALLEL")
	for m in $MODES; do
		case $m in
		pure) run+=(--mode pure=) ;;
		trace) run+=(--mode 'trace=mode=trace,include=emp.sut.tree.*') ;;
		*) run+=(--mode "$m=mode=sample,interval=${m#s}ms") ;;
		esac
	done
	for d in $DEPTHS; do
		for x in 0 $DELTAS; do
			run+=(--version "d$d-x$x=$JAVA -cp $BENCH_DIR/bin/java-sut.jar emp.sut.CallTree --depth $d --delta $x --leaf-calls $LEAF_CALLS --warmup $WARMUP --iterations $ITERS")
		done
	done
	printf '%q ' "${run[@]}" >"$BENCH_DIR/command.txt"
	"${run[@]}"
	rc=$?
	[[ $EXECUTOR == slurm && $rc == 0 ]] && { "$BENCH_DIR/bin/emp-run" wait "$BENCH_DIR/exp"; rc=$?; }
	((rc == 0)) || die "emp-run exited $rc; \`bash bench/exactness.sh --resume $BENCH_DIR\` continues"
fi
EMP_ANALYZE=$BENCH_DIR/bin/emp-analyze
EXP=$BENCH_DIR/exp

# exactness per depth, mode and Δ; the required VMs of the slow leaf and of runIteration (pure: the run's process
# time, node `run`) at all ITERS iterations into table.csv.
echo "depth,mode,delta,node,required_vms,f1_at_max_vms,max_vms" >"$BENCH_DIR/table.csv"
n=0
for d in $DEPTHS; do
	for m in $MODES; do
		if [[ $m == pure ]]; then
			sel=(--iterations 1) # one value per run: its process time
		else
			sel=(--warmup "$WARMUP" --nodes "emp.sut.CallTree.runIteration,emp.sut.tree.D$d.leaf_0"
				--metric "$METRIC" ${DROP_DISTURBED:+--drop-disturbed="$DROP_DISTURBED"} --iterations "$ITERS")
		fi
		for x in $DELTAS; do
			n=$((n + 1))
			printf '\r\033[Kbench: exactness depth %s %s delta %s' "$d" "$m" "$x" >&2
			out=$BENCH_DIR/exactness/d$d-$m-x$x
			mkdir -p "$out"
			"$EMP_ANALYZE" exactness --base "$EXP/$m/d$d-x0" --new "$EXP/$m/d$d-x$x" \
				"${sel[@]}" --resamples "$RESAMPLES" --seed "$SEED" --max-vms "$VMS" \
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
	echo "iterations per VM after $WARMUP warm-up, at most $VMS VMs: '>$VMS' = not reached; metric $METRIC${DROP_DISTURBED:+,"
	echo "--drop-disturbed=$DROP_DISTURBED})."
	echo "Node: the slow leaf D<d>.leaf_0 (runIteration in parentheses; pure: no agent, the run's process time, node run)."
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
	echo "Runs: $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n++; if ($c["disturbed"] == 1) b++; if ($c["exit"] != 0) f++ }
		END { printf "%d attempts, %d disturbed, %d failed", n, b, f }' "$EXP/runs.csv") (exp/runs.csv)."
	echo "The EMP picture: \`emp-analyze report $EXP\`.  Heatmaps: exactness/d<depth>-<mode>-x<delta>/heatmap.svg."
	echo
	sed 's/^/    /' "$BENCH_DIR/machine.txt"
} | tee "$BENCH_DIR/report.md"
