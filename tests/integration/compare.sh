#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare.sh - emp-analyze compare on real CallTree runs (issue 5), and its error paths.
#
# Per mode (trace; sample at 1 ms): 10 VMs of the base (--delta 0), 10 of the new version (--delta 0.1: the slow
# leaf D2.leaf_0 runs 180 tasks instead of 150, +20 %, the whole iteration +10 %) and 10 more of the base, run
# interleaved (base, new, base2, base, ...) so a change of machine load hits the three sets alike.  Asserts:
# base-vs-new flags D2.leaf_0 slower and leaves D2.leaf_1 (150 tasks in both) unchanged; base-vs-base2 flags no
# node at all.  Pure mode (no agent, java-sut --timings files, as many VMs): compare and exactness see one node,
# the iteration, with every measured iteration; base-vs-new flags it slower, base-vs-base2 does not.
#
# Parameters, chosen for power on a loaded 2-core machine (no timing assertion: only verdicts):
#   trace mode measures wall time between ENTER and EXIT, so preemption by other processes adds noise to every
#     iteration; 800 measured iterations per VM (~0.6 s) average it down.
#   sample mode (clock=cpu, perf engine at 1 ms) counts CPU time only and is immune to load, but one iteration
#     (~0.7 ms) holds less than one sample: 800 measured iterations give ~280 samples in each working leaf, and
#     since the samples are periodic over deterministic work their count varies far less than a Poisson count.
#   --warmup 300: the tree and task are JIT-compiled by then (task: 300 calls per iteration).
# False alarms: every "nothing changed" check is a test that a correct analyzer fails with probability α.  There
#   are ~10 of them per run (leaf_1 in base vs new, and every node of base vs base2, in three modes; the nodes
#   above a leaf move together, so ~3 independent ones per mode).  At the default α = 0.01 a correct build would
#   fail here in ~10 % of CI runs; at α = 0.001 (U <= 5 of 100 in the Mann-Whitney test of 10 VMs against 10,
#   p ~ 2e-4 per check under the null) a CI run still failed once (sample mode, D2.root "faster", ratio 0.989
#   [0.984, 0.994], p = 0.0008).  So they use α = 0.0003 (NULL_ALPHA): with 10 VMs a side the normal-approximated
#   test reaches it at U <= 1 only, which two sets of one program reach with probability 2e-5 per check, while a
#   set of another program (an analyzer that mixes up sets, or a measurement that depends on the VM's place in
#   the order) separates completely, U = 0, p = 1.8e-4, and still fails them.  The detection checks keep the
#   default α = 0.01.
# Power: VM-to-VM noise on these shared 2-vCPU machines is 2.4-7 % of a VM's mean iteration time (bench/README.md,
#   exactness: trace mode at depth 2 needs ~15 VMs per version for F1 > 98 % at a +10 % leaf change, sample mode at
#   1 ms ~7), so at +10 % 10 VMs miss the change in a few runs in a hundred in trace mode (a CI run failed this
#   script once at +10 %, which check the log did not show); at +20 % the change is twice the noise that made
#   those misses.  Sample mode counts CPU time: at 1 ms it flagged a +10 % leaf with p ~ 2e-4 (ratio interval
#   1.07-1.12 measured on a machine loaded to a trace-mode CV of 4.6), so its verdicts are checked on every run.
#   There is no retry: a trace-mode or pure-mode miss on a loaded or noisy machine (within-VM CV > 0.3 or
#   between-VM CV > 0.1) makes the script exit 77 naming it, a miss otherwise fails.  Pure mode times the whole
#   iteration, where a +20 % leaf is +10 % of it: its own runs use --delta 0.2.
# Knobs (env): VMS (10), WARMUP (300), ITERS (800), PAR (2: JVMs at once in sample mode; trace runs alone),
# KEEP=1 keeps the dumps.
set -uo pipefail
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
command -v "$JAVA" >/dev/null || { echo "compare: no java, skipped"; exit 77; }
LIB=$(readlink -f "$BUILD/libemp.so")
JAR=$(readlink -f "$BUILD/java-sut.jar")
EA=$(readlink -f "$BUILD/emp-analyze")
VMS=${VMS:-10} WARMUP=${WARMUP:-300} ITERS=${ITERS:-800} PAR=${PAR:-2}
NULL_ALPHA=0.0003
T=$(mktemp -d /tmp/emp-compare.XXXXXX)
[[ ${KEEP:-0} == 1 ]] && echo "compare: keeping $T" || trap 'rm -rf "$T"' EXIT
fail=0
unchecked=()
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

# run MODE SET VM DELTA - one CallTree VM writing $T/MODE/SET/vmVM.emp, or in mode pure (no agent) the SUT's own
# timing file $T/pure/SET/vmVM.csv
run() {
	local opts jvm=() sut=()
	case $1 in
	trace) opts="mode=trace,include=emp.sut.tree.*" ;;
	sample) opts="mode=sample,interval=1ms" ;;
	esac
	if [[ $1 == pure ]]; then
		sut=(--timings "$T/$1/$2/vm$3.csv")
	else
		jvm=(-agentpath:"$LIB=$opts,iteration=emp.sut.CallTree.runIteration,out=$T/$1/$2/vm$3.emp")
	fi
	"$JAVA" "${jvm[@]}" -cp "$JAR" emp.sut.CallTree --depth 2 --warmup "$WARMUP" --iterations "$ITERS" --delta "$4" \
		"${sut[@]}" >/dev/null 2>"$T/$1-$2-$3.err" || echo "run $1 $2 $3 failed: $(head -3 "$T/$1-$2-$3.err")" >&2
}
export -f run
export T LIB JAR JAVA WARMUP ITERS

for mode in trace sample; do
	mkdir -p "$T/$mode/base" "$T/$mode/new" "$T/$mode/base2"
	par=1
	[[ $mode == sample ]] && par=$PAR
	for ((i = 1; i <= VMS; i++)); do
		printf '%s base %d 0\n%s new %d 0.1\n%s base2 %d 0\n' "$mode" "$i" "$mode" "$i" "$mode" "$i"
	done | xargs -P "$par" -L 1 bash -c 'run "$@"' _
	n=$(ls "$T/$mode"/*/*.emp 2>/dev/null | wc -l)
	check "$mode: $((3 * VMS)) dumps written" test "$n" -eq $((3 * VMS))

	"$EA" compare --base "$T/$mode/base" --new "$T/$mode/new" --warmup "$WARMUP" >"$T/$mode.txt"
	rc=$?
	"$EA" compare --base "$T/$mode/base" --new "$T/$mode/new" --warmup "$WARMUP" --format=csv >"$T/$mode.csv"
	"$EA" compare --base "$T/$mode/base" --new "$T/$mode/base2" --warmup "$WARMUP" --alpha $NULL_ALPHA --format=csv \
		>"$T/$mode-bb.csv"
	check "$mode: compare exits 0" test "$rc" -eq 0
	verdict() { # verdict CSV PATH-SUFFIX -> verdict of the row whose node ends with the suffix
		awk -F, -v s="$2" 'NR > 1 && substr($1, length($1) - length(s) + 1) == s { print $8 }' "$1"
	}
	check "$mode: header" grep -q '^node,base_mean,new_mean,ratio,ratio_lo,ratio_hi,p_value,verdict,' "$T/$mode.csv"
	check "$mode: 10 VMs per version" awk -F, -v n="$VMS" 'NR == 2 { exit !($13 == n && $14 == n) }' "$T/$mode.csv"
	# Sample mode counts CPU time, which preemption does not move: its verdicts are checked on every run.  Trace
	# mode times wall clock: on a machine so loaded that preemption dominates the iterations (within-VM coefficient
	# of variation of D2.leaf_0 above 0.3; ~0.05 when the cores are free), or whose speed differs from one VM to
	# the next by more than half the change (between-VM coefficient of variation above 0.1, Kalibera-Jones; 0.024
	# to 0.07 on these machines, see Power), no 10-VM test can see +20 %, so there a miss is not a failure but
	# makes the script SKIP (exit 77, the reason on its last line); a miss at normal CVs fails.  A CI run on a
	# host whose runs of one binary spread by ±20 % failed the verdicts here once.
	cv=$(awk -F, '$1 ~ /;emp.sut.tree.D2.leaf_0$/ { printf "%.2f", sqrt($15) / $2 }' "$T/$mode.csv")
	bcv=$(awk -F, '$1 ~ /;emp.sut.tree.D2.leaf_0$/ { printf "%.3f", sqrt($16 > 0 ? $16 : 0) / $2 }' "$T/$mode.csv")
	verdicts_ok() {
		[[ $(verdict "$T/$mode.csv" ';emp.sut.tree.D2.leaf_0') == slower ]] &&
			awk -F, -v s=';emp.sut.tree.D2.leaf_1' -v a=$NULL_ALPHA 'NR > 1 && substr($1, length($1) - length(s) + 1) == s {
				n++; ok = $7 > a } END { exit !(n == 1 && ok) }' "$T/$mode.csv" &&
			# the one root cause: leaf_0, or in sample mode the task it calls (trace mode does not trace task);
			# any other is a "nothing changed" check like leaf_1's above, held to NULL_ALPHA (a run of CI 129
			# failed on leaf_1's task "faster" at p = 0.0081, a false alarm the default alpha makes 1 % likely)
			awk -F, -v a=$NULL_ALPHA '$9 == 1 && $1 ~ /;emp.sut.tree.D2.leaf_0(;emp.sut.CallTree.task)?$/ { n++ }
				$9 == 1 && $1 !~ /;emp.sut.tree.D2.leaf_0(;emp.sut.CallTree.task)?$/ && $7 <= a { other++ }
				END { exit !(n == 1 && !other) }' "$T/$mode.csv"
	}
	what="$mode: D2.leaf_0 slower, D2.leaf_1 unchanged (p > $NULL_ALPHA), the one root cause D2.leaf_0 (or its task), any other at p > $NULL_ALPHA"
	if verdicts_ok; then
		check "$what" true
	elif [[ $mode == trace ]] && awk -v c="$cv" -v b="$bcv" 'BEGIN { exit !(c > 0.3 || b > 0.1) }'; then
		echo "note $mode: D2.leaf_0 verdicts missed at within-VM CV $cv, between-VM CV $bcv (machine too noisy)"
		unchecked+=("trace verdicts (within-VM CV $cv, between-VM CV $bcv)")
	else
		check "$what" false
		# what missed, on a line the test runner shows (it shows the FAIL lines and the output's tail)
		echo "FAIL   ($mode: $(awk -F, 'NR > 1 && $1 ~ /;emp.sut.tree.D2.leaf_[01]$/ { n = split($1, f, ";")
			printf "%s %s ratio %.3f p %.2g; ", f[n], $8, $4, $7 } NR > 1 && $9 == 1 { n = split($1, f, ";")
			c = c " " f[n] } END { printf "root causes:%s", c }' "$T/$mode.csv"); within-VM CV $cv, between-VM CV $bcv)"
	fi
	check "$mode: base vs base flags nothing" \
		awk -F, 'NR > 1 { n++; if ($8 != "unchanged") bad++ } END { exit !(n >= 6 && bad == 0) }' "$T/$mode-bb.csv"
	if ((fail)); then
		echo "--- $mode base vs new"; cat "$T/$mode.txt"
		echo "--- $mode base vs base2"; cut -d, -f1-9 "$T/$mode-bb.csv"
	fi
done

# Pure mode (no agent; issue #5's reference row): the SUT's own timing files, one node, the iteration, named as
# the dumps name it.  Run alone like trace mode (wall time).  With --delta 0.2 the iteration is +20 % in the new version (see the header).
mkdir -p "$T/pure/base" "$T/pure/new" "$T/pure/base2"
for ((i = 1; i <= VMS; i++)); do
	printf 'pure base %d 0\npure new %d 0.2\npure base2 %d 0\n' "$i" "$i" "$i"
done | xargs -P 1 -L 1 bash -c 'run "$@"' _
n=$(ls "$T/pure"/*/*.csv 2>/dev/null | wc -l)
check "pure: $((3 * VMS)) timing files written" test "$n" -eq $((3 * VMS))
IT=emp.sut.CallTree.runIteration
"$EA" compare --base "$T/pure/base" --new "$T/pure/new" --iteration-name=$IT >"$T/pure.txt"
check "pure: compare exits 0" test $? -eq 0
"$EA" compare --base "$T/pure/base" --new "$T/pure/new" --iteration-name=$IT --format=csv >"$T/pure.csv"
"$EA" compare --base "$T/pure/base" --new "$T/pure/base2" --iteration-name=$IT --alpha $NULL_ALPHA --format=csv \
	>"$T/pure-bb.csv"
# java-sut writes the measured iterations only: all of them are measurement iterations without --warmup
check "pure: $VMS VMs of $ITERS iterations per version" \
	grep -q "^base: $T/pure/base, $VMS VMs, $ITERS-$ITERS measurement iterations each" "$T/pure.txt"
check "pure: $VMS VMs a side are enough for a verdict (no note)" bash -c "! grep -q 'VMs the mwu test gives' '$T/pure.txt'"
check "pure: one node, the iteration" awk -F, -v n="$VMS" -v it="$IT" \
	'NR > 1 { rows++; ok = $1 == it && $10 == 1 && $13 == n && $14 == n } END { exit !(rows == 1 && ok) }' "$T/pure.csv"
cv=$(awk -F, 'NR == 2 { printf "%.2f", sqrt($15) / $2 }' "$T/pure.csv")
bcv=$(awk -F, 'NR == 2 { printf "%.3f", sqrt($16 > 0 ? $16 : 0) / $2 }' "$T/pure.csv")
if ! awk -F, 'NR == 2 { exit !($8 == "slower") }' "$T/pure.csv" &&
	awk -v c="$cv" -v b="$bcv" 'BEGIN { exit !(c > 0.3 || b > 0.1) }'; then
	echo "note pure: the iteration's verdict missed at within-VM CV $cv, between-VM CV $bcv (machine too noisy)"
	unchecked+=("pure verdict (within-VM CV $cv, between-VM CV $bcv)")
else
	check "pure: the iteration slower" awk -F, 'NR == 2 { exit !($8 == "slower") }' "$T/pure.csv"
fi
check "pure: base vs base flags nothing" awk -F, 'NR == 2 { exit !($8 == "unchanged") }' "$T/pure-bb.csv"
"$EA" exactness --base "$T/pure/base" --new "$T/pure/new" --iteration-name=$IT --iterations "$ITERS" \
	--resamples 200 --format=csv >"$T/pure-exactness.csv"
check "pure: exactness, one row for the iteration" awk -F, -v it="$IT" -v n="$ITERS" -v k="$VMS" \
	'NR > 1 { rows++; ok = $1 == it && $2 == n && $5 == k } END { exit !(rows == 1 && ok) }' "$T/pure-exactness.csv"
((fail)) && { echo "--- pure base vs new"; cat "$T/pure.txt"; cat "$T/pure-exactness.csv"; }

# Error paths: one line on stderr, exit 1 (input) or 2 (command line).
mkdir -p "$T/empty" "$T/plain"
"$JAVA" -agentpath:"$LIB=mode=sample,interval=1ms,out=$T/plain/vm1.emp" -cp "$JAR" emp.sut.CallTree --warmup 1 \
	--iterations 1 >/dev/null
err() { # err EXPECTED-STATUS PATTERN ARGS...
	"$EA" compare "${@:3}" >/dev/null 2>"$T/err.txt"
	local rc=$?
	[[ $rc -eq $1 && $(wc -l <"$T/err.txt") -eq 1 ]] && grep -q "$2" "$T/err.txt" ||
		{ echo "   status $rc, stderr: $(cat "$T/err.txt")"; return 1; }
}
check "error: empty directory" err 1 'no dump' --base "$T/empty" --new "$T/trace/new"
check "error: missing directory" err 1 'No such file' --base "$T/nonexistent" --new "$T/trace/new"
check "error: modes mixed" err 1 'mode=sample, but .* mode=trace' --base "$T/trace/base" --new "$T/sample/new"
check "error: dumps against timing files" err 1 "$T/pure/new: timing files (\*.csv), but $T/trace/base/vm1.emp is a dump" \
	--base "$T/trace/base" --new "$T/pure/new"
check "error: timing files against dumps" err 1 "$T/trace/new: dumps (\*.emp), but $T/pure/base/vm1.csv is a timing file" \
	--base "$T/pure/base" --new "$T/trace/new"
check "error: a whole run against iterations" err 1 \
	"$T/sample/new/vm1.emp: iterations of emp.sut.CallTree.runIteration, but $T/plain/vm1.emp has iterations of \
the whole run (recorded without iteration=)" \
	--base "$T/plain" --new "$T/sample/new"
# a dump recorded without iteration= is one iteration, the whole run: compared under a node `run` holding all
# of its samples (the same dump on both sides: unchanged, ratio 1)
whole() {
	"$EA" compare --base "$T/plain" --new "$T/plain" --format=csv >"$T/whole.csv" 2>"$T/whole.err" || return 1
	local samples
	samples=$("$EA" info --format=csv "$T/plain/vm1.emp" | awk -F, '$1 == "counters" && $3 == "samples" { print $4 }')
	awk -F, -v s="$samples" '
		$1 == "run" { run = 1; ok = $8 == "unchanged" && $2 == s && $3 == s } END { exit !(run && ok) }' \
		"$T/whole.csv" || { head -3 "$T/whole.csv"; cat "$T/whole.err"; return 1; }
}
check "whole runs: a node run with every sample" whole
# one VM a side: no verdict can reach alpha, and the notes say so and how many VMs could
check "too few VMs for any verdict: a note" grep -qF \
	"with 1 and 1 VMs the mwu test gives p >= 1 even when every value of one version lies beyond the other's: no node can be found changed at alpha 0.01 (5 VMs per version can)" \
	<("$EA" compare --base "$T/plain" --new "$T/plain" 2>&1)
check "error: warm-up swallows every iteration" err 1 'none left after --warmup' --base "$T/trace/base" \
	--new "$T/trace/new" --warmup 100000
check "error: --new missing" err 2 'required' --base "$T/trace/base"
check "error: bad --test" err 2 'expected mwu' --base "$T/trace/base" --new "$T/trace/new" --test=ttest
check "error: bad --alpha" err 2 'alpha' --base "$T/trace/base" --new "$T/trace/new" --alpha=2
check "error: bad --max-contexts" err 2 'max-contexts=-3: expected a count' --base "$T/trace/base" \
	--new "$T/trace/new" --max-contexts=-3
((fail)) && exit 1
# Never a silent pass: what a loaded machine kept from being checked turns the run into a SKIP that names it.
[ ${#unchecked[@]} -eq 0 ] || { echo "everything else passed; not checked: $(IFS=,; echo "${unchecked[*]}")"; exit 77; }
exit 0
