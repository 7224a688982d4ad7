#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# emp_run.sh - build/emp-run (issue 13 §1) end to end on java-sut's CallTree, local executor.
#
# 1. A 2-version x 2-mode experiment (pure= and trace; base, and new with --task-size 3000: every task three
#    times the work), 3 VMs: the exact file tree, runs.csv's exact rows in the plan's order (round by round,
#    pure/base pure/new trace/base trace/new), every dump with 320 iterations (20 warm-up + 300), and compare on the
#    result: on the trace dumps it sees the whole tree in every VM; on the pure directories (the runs' process
#    times) it says "slower" (3 VMs per version: all new above all base gives p = 0.1, so --alpha 0.2; the work
#    of the iterations triples, ~0.4 s of CPU, far above VM-to-VM noise; trace mode measures wall time, which a
#    loaded machine stretches, so its verdict is not asserted here: emp_run_slurm.sh asserts sample mode's).
#    emp-analyze report: one point per run in the picture, a compare table per mode, trace's overhead.
# 2. The same command again: "continuing", nothing run, runs.csv byte-identical.
# 3. --rerun-disturbed 1 with a rule that flags every run (--disturbed-factor 0 --disturbed-slack 0): exactly two
#    attempts per run, both kept; --parallel 2 pins the two slots to different CPUs.
# 4. SIGINT mid-experiment: exit 130, only finished runs recorded, no JVM left; resume runs exactly the missing
#    ones, each plan index exactly once in the end.
#    SIGKILL (a crash) instead: the JVM dies with emp-run, resume completes the plan.
# 5. Bad input: one line, exit 2, the directory untouched.
# JDK: $JAVA, then section 1 again with $JDK25/bin/java when that exists.
set -uo pipefail
BUILD=${BUILD:-build}
JAVA=${JAVA:-java}
command -v "$JAVA" >/dev/null || { echo "emp_run: no java, skipped"; exit 77; }
JAVA=$(command -v "$JAVA")
RUN=$(readlink -f "$BUILD/emp-run")
EA=$(readlink -f "$BUILD/emp-analyze")
JAR=$(readlink -f "$BUILD/java-sut.jar")
T=$(mktemp -d /tmp/emp-run-test.XXXXXX)
[[ ${KEEP:-0} == 1 ]] && echo "emp_run: keeping $T" || trap 'rm -rf "$T"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
eq() { [[ "$1" == "$2" ]] || { echo "     got:      $(head -c 600 <<<"$1")"; echo "     expected: $(head -c 600 <<<"$2")"; return 1; }; }

CT="$JAVA -cp $JAR emp.sut.CallTree --depth 2 --warmup 20 --iterations 300"
# 1 ---------------------------------------------------------------------------------------------------------
E=$T/exp
"$RUN" --out "$E" --vms 3 --iteration emp.sut.CallTree.runIteration --mode pure= \
	--mode 'trace=mode=trace,include=emp.sut.tree.*' --version "base=$CT" --version "new=$CT --task-size '3000'" \
	>"$T/1.out" 2>"$T/1.err"
check "experiment: exit 0" eq "$?" 0
want=$(for m in pure trace; do for v in base new; do for k in 1 2 3; do
	echo "$m/$v/vm$k.err"; echo "$m/$v/vm$k.out"; [[ $m == trace ]] && echo "$m/$v/vm$k.emp"; done; done; done
	echo experiment.conf; echo runs.csv)
check "experiment: exactly the files DIR/<mode>/<version>/vm<K>.{emp,out,err}, experiment.conf, runs.csv" \
	eq "$(cd "$E" && find . -type f ! -name .lock | sed 's|^\./||' | sort)" "$(sort <<<"$want")"
check "runs.csv: the header" eq "$(head -1 "$E/runs.csv")" \
	"index,mode,version,vm,attempt,exit,elapsed_s,cpu_s,user_s,sys_s,voluntary_cs,involuntary_cs,load_before,load_after,cpus,disturbed"
want=$(for k in 1 2 3; do i=$(((k - 1) * 4)); for m in pure trace; do for v in base new; do
	echo "$i,$m,$v,$k,1,0"; i=$((i + 1)); done; done; done)
check "runs.csv: one row per run in the plan's order (versions and modes interleaved per round), attempt 1, exit 0" \
	eq "$(tail -n +2 "$E/runs.csv" | cut -d, -f1-6)" "$want"
check "runs.csv: 16 fields per row, cpu = user + sys" \
	eq "$(tail -n +2 "$E/runs.csv" | awk -F, 'NF != 16 || ($8 - $9 - $10) > 1e-5 || ($8 - $9 - $10) < -1e-5' | wc -l)" 0
check "stdout of the program beside its dump (CallTree prints its configuration)" \
	grep -q '^calltree depth=2 .*task_size=3000' "$E/trace/new/vm2.out"
"$EA" compare --base "$E/trace/base" --new "$E/trace/new" --alpha 0.2 --format=csv >"$T/trace.csv" 2>"$T/trace.err"
check "compare (trace dumps): runs" eq "$?" 0
TREE="emp.sut.CallTree.runIteration;emp.sut.tree.D2.root;emp.sut.tree.D2.node_1_0;emp.sut.tree.D2.node_2_0"
check "compare (trace dumps): the iteration and its 5 tree nodes, 3 VMs each" \
	eq "$(grep -cE "^(emp.sut.CallTree.runIteration|$TREE(;emp.sut.tree.D2.leaf_[01])?|${TREE%;*}|${TREE%;*;*}),.*,3,3(,|$)" "$T/trace.csv")" 6
"$EA" compare --base "$E/trace/base" --new "$E/trace/new" --alpha 0.2 >"$T/trace.txt"
check "compare (trace dumps): 320 iterations per VM (20 warm-up + 300, every one marked)" \
	grep -q '3 VMs, 320-320 measurement iterations' "$T/trace.txt"
"$EA" compare --base "$E/pure/base" --new "$E/pure/new" --alpha 0.2 --format=csv >"$T/pure.csv" 2>"$T/pure.err"
check "compare (pure directories of emp-run, process time): one node 'run', slower" \
	eq "$(tail -n +2 "$T/pure.csv" | cut -d, -f1,8,13,14)" "run,slower,3,3"
"$EA" compare --base "$E/pure/base" --new "$E/pure/new" --alpha 0.2 --run-time=elapsed --format=csv >"$T/pure-el.csv"
want=$(awk -F, '$2 == "pure" && $3 == "base" { printf "%.0f\n", $7 * 1e9 }' "$E/runs.csv" | sort -n | awk '{ s += $1 } END { printf "%.0f", s / NR }')
check "compare --run-time=elapsed: the base mean is the mean elapsed_s of runs.csv" \
	eq "$(tail -n +2 "$T/pure-el.csv" | cut -d, -f2 | xargs printf '%.0f')" "$want"
"$EA" overhead --pure "$E/pure/base" --measured "$E/pure/new" --format=csv >"$T/ovh.csv"
check "overhead on emp-run directories: runs" eq "$?" 0
"$EA" exactness --base "$E/pure/base" --new "$E/pure/new" --max-vms 3 --resamples 50 >"$T/ex.txt"
check "exactness on emp-run directories: runs" eq "$?" 0
"$EA" report "$E" -o "$T/report.html" --alpha 0.2 2>"$T/report.err"
check "report: exit 0" eq "$?" 0
H=$T/report.html
check "report: one point per run in the EMP picture, its tooltip naming it" \
	eq "$(grep -c '^<circle .*r="4" fill=.*vm[0-9] attempt 1: elapsed' "$H")" 12
ndist=$(tail -n +2 "$E/runs.csv" | awk -F, '$16 == 1' | wc -l)
check "report: the picture's title counts the disturbed runs ($ndist), each ringed" \
	eq "$(grep -c "per run (12 runs, $ndist disturbed)" "$H"):$(grep -c '^<circle .*r="7.5".*/><circle ' "$H")" "1:$ndist"
sed -n '/^<svg/,/^<\/svg>/p' "$H" >"$T/pic.svg"
check "report: the picture is well-formed SVG" python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$T/pic.svg"
check "report: a section per mode, pure's compare table says slower" \
	eq "$(grep -c '^<h2>Mode ' "$H"):$(grep -c '<tr class="slower"><td>slower</td><td>1</td>.*<td>run</td>' "$H")" "2:1"
check "report: trace's compare table has the compare command's rows" \
	eq "$(sed -n '/<h2>Mode trace/,/<\/table>/p' "$H" | grep -c '<td>emp.sut.CallTree.runIteration')" "$(tail -n +2 "$T/trace.csv" | wc -l)"
check "report: the overhead of trace against pure for both versions" \
	eq "$(grep -c '^<h3>trace / \(base\|new\)</h3>' "$H"):$(grep -c '^<tr><td>trace</td><td>3</td>' "$H")" "2:2"
# the picture grows with its legend: 32 (mode, version) groups need 748 px (synthetic manifest, no JVM)
mkdir -p "$T/big"
{ head -1 "$E/runs.csv"; for m in 0 1 2 3; do for v in 0 1 2 3 4 5 6 7; do
	echo "$((m * 8 + v)),m$m,v$v,1,1,0,1.$m$v,1.$v$m,1,0,1,1,0,0,0,0"; done; done; } >"$T/big/runs.csv"
"$EA" report "$T/big" -o "$T/big.html" 2>/dev/null
sed -n '/^<svg/,/^<\/svg>/p' "$T/big.html" >"$T/big.svg"
check "report: the picture's height fits a legend of 32 groups" grep -q '^<svg .* width="820" height="748"' "$T/big.svg"
if command -v rsvg-convert >/dev/null; then
	png_size() { rsvg-convert "$1" -o "$1.png" && od -An -tu1 -j16 -N8 "$1.png" | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }'; }
	check "report: the pictures render (rsvg-convert) at 820x500 and 820x748" \
		eq "$(png_size "$T/pic.svg") $(png_size "$T/big.svg")" "820x500 820x748"
fi
"$EA" report "$T/other" 2>"$T/report.err"
check "report of a directory that is no experiment: exit 1, one line" \
	eq "$?:$(wc -l <"$T/report.err"):$(grep -c 'not an emp-run experiment' "$T/report.err")" "1:1:1"

# the second JDK runs section 1 only: the rest is emp-run's own logic, the same on every JDK
[[ -n ${EMP_RUN_SECOND_JDK:-} ]] && exit $fail
# 2 ---------------------------------------------------------------------------------------------------------
before=$(md5sum <"$E/runs.csv")
"$RUN" --out "$E" --vms 3 --iteration emp.sut.CallTree.runIteration --mode pure= \
	--mode 'trace=mode=trace,include=emp.sut.tree.*' --version "base=$CT" --version "new=$CT --task-size '3000'" \
	>"$T/2.out" 2>"$T/2.err"
check "same command again: exit 0, 'continuing', nothing run" \
	eq "$?:$(grep -c 'continuing' "$T/2.err"):$(grep -c '\[' "$T/2.err")" "0:1:0"
check "same command again: runs.csv unchanged" eq "$(md5sum <"$E/runs.csv")" "$before"
"$RUN" status "$E" >"$T/st.out"
check "status: all done" eq "$?:$(head -1 "$T/st.out" | sed 's/([0-9]* disturbed)/(N disturbed)/')" \
	"0:$E: 12 of 12 runs done (N disturbed), 0 failed, 0 to run"

# 3 ---------------------------------------------------------------------------------------------------------
D=$T/dist
"$RUN" --out "$D" --vms 2 --mode pure= --version "a=$JAVA -cp $JAR emp.sut.CallTree --warmup 0 --iterations 5" \
	--disturbed-factor 0 --disturbed-slack 0 --rerun-disturbed 1 --parallel 2 >"$T/3.out" 2>"$T/3.err"
check "rerun-disturbed 1: exit 0" eq "$?" 0
check "rerun-disturbed 1: two attempts per run, every attempt kept and flagged" \
	eq "$(tail -n +2 "$D/runs.csv" | cut -d, -f1,4,5,16 | sort)" "$(printf '0,1,1,1\n0,1,2,1\n1,2,1,1\n1,2,2,1')"
if (($(nproc) >= 2)); then
	check "--parallel 2: the two slots pinned to different single CPUs" \
		eq "$(tail -n +2 "$D/runs.csv" | cut -d, -f15 | sort -u | wc -l):$(tail -n +2 "$D/runs.csv" | cut -d, -f15 | grep -vc '^[0-9]*$')" "2:0"
fi
check "status counts the disturbed runs" grep -q '2 of 2 runs done (2 disturbed)' "$T/3.out"

# 4 ---------------------------------------------------------------------------------------------------------
R=$T/resume
"$RUN" --out "$R" --vms 6 --mode pure= --version "a=$JAVA -cp $JAR emp.sut.CallTree --warmup 0 --iterations 700" \
	>"$T/4.out" 2>"$T/4.err" &
pid=$!
for ((w = 0; w < 600; w++)); do
	(($(tail -n +2 "$R/runs.csv" 2>/dev/null | wc -l) >= 2)) && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
check "SIGINT: exit 130" eq "$?" 130
done_before=$(tail -n +2 "$R/runs.csv" | wc -l)
check "SIGINT: 2 to 5 finished runs recorded, rows whole" \
	eq "$((done_before >= 2 && done_before < 6)):$(tail -c 1 "$R/runs.csv" | od -An -c | tr -d ' ')" '1:\n'
check "SIGINT: no JVM of the experiment left" eq "$(pgrep -f -- "-cp $JAR emp.sut.CallTree --warmup 0 --iterations 700" | wc -l)" 0
check "SIGINT: 'resume' named" grep -q "emp-run resume $R" "$T/4.err"
"$RUN" status "$R" >/dev/null
check "status of an unfinished experiment: exit 1" eq "$?" 1
"$RUN" resume "$R" >"$T/r.out" 2>"$T/r.err"
check "resume: exit 0" eq "$?" 0
check "resume: ran exactly the $((6 - done_before)) missing runs" eq "$(grep -c '^emp-run: \[' "$T/r.err")" "$((6 - done_before))"
check "resume: every plan index exactly once, attempt 1" \
	eq "$(tail -n +2 "$R/runs.csv" | cut -d, -f1,5 | sort -n | tr '\n' ' ')" "0,1 1,1 2,1 3,1 4,1 5,1 "

# 4b: emp-run killed (SIGKILL, as in a crash): its JVM dies with it, resume completes the plan
K=$T/kill
"$RUN" --out "$K" --vms 4 --mode pure= --version "a=$JAVA -cp $JAR emp.sut.CallTree --warmup 0 --iterations 701" \
	>/dev/null 2>&1 &
pid=$!
for ((w = 0; w < 600; w++)); do
	(($(tail -n +2 "$K/runs.csv" 2>/dev/null | wc -l) >= 1)) && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 0.5
check "SIGKILL: the running JVM died with emp-run" \
	eq "$(pgrep -f -- "-cp $JAR emp.sut.CallTree --warmup 0 --iterations 701" | wc -l)" 0
"$RUN" resume "$K" >/dev/null 2>&1
check "SIGKILL, then resume: exit 0, every plan index exactly once" \
	eq "$?:$(tail -n +2 "$K/runs.csv" | cut -d, -f1,5 | sort -n | tr '\n' ' ')" "0:0,1 1,1 2,1 3,1 "

# 5 ---------------------------------------------------------------------------------------------------------
snap() { (cd "$E" && find . -type f -exec md5sum {} + | sort); }
S0=$(snap)
bad() { # bad DESCRIPTION EXPECTED-MESSAGE-PART ARGS...
	"$RUN" "${@:3}" >"$T/bad.out" 2>"$T/bad.err"
	local rc=$?
	check "bad input, $1: exit 2, one line naming it" \
		eq "$rc:$(wc -l <"$T/bad.err"):$(grep -c -- "$2" "$T/bad.err")" "2:1:1"
}
bad "a DIR holding another experiment" "holds another experiment (its experiment.conf has 'vms=3', this one 'vms=4')" \
	--out "$E" --vms 4 --iteration emp.sut.CallTree.runIteration --mode pure= --mode 'trace=mode=trace,include=emp.sut.tree.*' \
	--version "base=$CT" --version "new=$CT --task-size '3000'"
mkdir -p "$T/other" && touch "$T/other/file"
bad "a non-empty DIR of something else" "not empty and not an emp-run experiment" --out "$T/other" --vms 1 \
	--mode pure= --version "a=$CT"
bad "not a java command" "not a java command" --out "$T/x" --vms 1 --mode pure= --version "a=python3 -c 'print(1)'"
bad "an unterminated quote" "unterminated single quote" --out "$T/x" --vms 1 --mode pure= --version "a=java -cp 'x"
bad "a mode without NAME=" "expected NAME=AGENT_OPTIONS" --out "$T/x" --vms 1 --mode pure --version "a=$CT"
bad "a bad version name" "bad name 'a/b'" --out "$T/x" --vms 1 --mode pure= --version "a/b=$CT"
bad "a version given twice" "version 'a' given twice" --out "$T/x" --vms 1 --mode pure= --version "a=$CT" --version "a=$CT"
bad "out= in the agent options" "'out=x.emp' is set by emp-run" --out "$T/x" --vms 1 --mode s=mode=sample,out=x.emp \
	--version "a=$CT"
bad "an unknown option" "--frobnicate: unknown option" --out "$T/x" --vms 1 --mode pure= --version "a=$CT" --frobnicate
PATH=/nonexistent "$RUN" --out "$T/x" --vms 1 --mode pure= --version "a=$CT" --executor slurm 2>"$T/bad.err"
check "--executor slurm, PATH without sbatch: exit 2" eq "$?:$(grep -c 'no sbatch' "$T/bad.err")" "2:1"
bad "--pin under Slurm" "--pin is for the local executor" --out "$T/x" --vms 1 --mode pure= --version "a=$CT" \
	--executor slurm --pin
bad "resume of a directory without experiment" "no experiment.conf" resume "$T/other"
bad "an unknown command" "frob: unknown command" frob "$E"
check "bad input: nothing created, nothing measured touched" eq "$([[ -e $T/x ]] && echo x)$(snap)" "$S0"
"$EA" compare --base "$T/other" --new "$E/pure/new" 2>"$T/bad.err"
check "compare on a directory that is neither: exit 1, one line" \
	eq "$?:$(grep -c 'not a directory of emp-run' "$T/bad.err")" "1:1"

JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [[ -z ${EMP_RUN_SECOND_JDK:-} && -x $JDK25/bin/java ]]; then
	echo "== again on $JDK25"
	EMP_RUN_SECOND_JDK=1 JAVA=$JDK25/bin/java bash "$0" || fail=1
fi
exit $fail
