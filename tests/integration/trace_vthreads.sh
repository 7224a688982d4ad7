#!/usr/bin/env bash
# trace_vthreads.sh - trace mode on virtual threads, and `calls --check` on broken and sound traces.
#   1. `calls --check` on dumps written with the dump writer library (unit tests' dump/corpus): one with a violation
#      of each kind exits 1 with exactly one stderr line per kind; one whose only open call was cut by the end of
#      the recording exits 0 and names it.
#   2. emp.sut.VirtualThreads: N threads each call Chain.outer -> middle -> 2x inner K times, yielding inside middle
#      (a virtual thread resumes on another carrier mid-call) and sleeping/yielding between rounds.  The calls per
#      method equal the program's own counts, `calls --check` exits 0 with nothing on stderr (nothing unclosed,
#      nothing unbalanced), every virtual thread is a dump thread of its own holding exactly its 8*K events, no call
#      lasts longer than the run, the Chrome export has one track per virtual thread, and the inner calls (which never unmount) add up to at most wall time x carriers.
#      JDK 17 (no virtual threads): platform threads, unchanged.  JDK 25: virtual threads, with the probes' FFM
#      flavour and with the JNI one (forced by an include pattern that could select JDK classes).
#   3. The JDK's virtual-thread machinery traced as well (include java.lang.*, jdk.internal.vm.*): still no
#      violation and exact counts (frames marked @JvmtiHideEvents are never instrumented).
#   4. System.exit inside traced calls (platform threads on JDK 17, virtual threads on JDK 25): the calls it cuts
#      are named as open at the end and are no violation, though the exiting thread gets a ThreadEnd.
# Exit 0 pass, 1 fail, 77 when JDK 25 is absent (after the other parts passed).
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
UNIT=$TOP/$BUILD/unit-tests
[ -x "$ANALYZE" ] || fail "no $ANALYZE (make)"
[ -x "$UNIT" ] || fail "no $UNIT (make $BUILD/unit-tests)"
[ -f "$SUT" ] || fail "no $SUT (make)"

# --- 1. calls --check on written dumps ------------------------------------------------------------------------
mkdir -p corpus
EMP_TEST_CORPUS=$TMP/corpus "$UNIT" --filter 'dump/corpus' >/dev/null 2>&1 || fail "unit-tests --filter dump/corpus failed"
B=corpus/trace-broken.emp
"$ANALYZE" calls --check --format=csv "$B" >out.csv 2>err.txt
expect_eq "calls --check on a broken trace: exit status" 1 $?
expect_eq "calls --check on a broken trace: stderr" \
"emp-analyze calls: $B: 1 calls never closed: their thread ended with them open (never_closed)
emp-analyze calls: $B: 2 exits the agent saw without an open entry (counter trace_unbalanced_exit)
emp-analyze calls: $B: 1 exits without an entry in the events (exit_without_entry)
emp-analyze calls: $B: 1 calls left open by System.exit or the end of the recording (open_at_end; not a violation)" \
    "$(cat err.txt)"
expect_eq "calls --check on a broken trace: table" \
    "$B,2,4,1,2,1,0,0,0,3,1,1,2" "$(tail -n 1 out.csv)"
O=corpus/trace-open-at-end.emp
"$ANALYZE" calls --check "$O" >/dev/null 2>err.txt
expect_eq "calls --check, a call open at the end only: exit status" 0 $?
expect_eq "calls --check, a call open at the end only: stderr" \
    "emp-analyze calls: $O: 1 calls left open by System.exit or the end of the recording (open_at_end; not a violation)" \
    "$(cat err.txt)"

# --- 2. traced threads that move between carriers -----------------------------------------------------------------
CARRIERS=2
# run JAVA KIND THREADS ROUNDS INCLUDE WHAT: one traced run, checked as described above.
run() {
    local jdk=$1 kind=$2 threads=$3 rounds=$4 include=$5 what=$6 t0 t1 wall_ns done calls
    t0=$(date +%s%N)
    "$jdk" -Djdk.virtualThreadScheduler.parallelism=$CARRIERS \
        -agentpath:"$AGENT"=mode=trace,include="$include",out=vt.emp -cp "$SUT" emp.sut.VirtualThreads \
        --kind "$kind" --threads "$threads" --rounds "$rounds" >out.txt 2>err.txt ||
        fail "$what: run failed: $(head -n 20 err.txt)"
    t1=$(date +%s%N)
    wall_ns=$((t1 - t0))
    [ -s err.txt ] && fail "$what: the agent printed: $(head -n 5 err.txt)"
    done=$(grep '^virtualthreads done' out.txt) || fail "$what: no summary line: $(cat out.txt)"
    get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$done"; }
    expect_eq "$what: program's outer calls" $((threads * rounds)) "$(get outer_calls)"
    "$ANALYZE" calls --format=csv vt.emp >calls.csv || fail "$what: calls failed"
    for m in outer middle inner; do
        calls=$(awk -F, -v m="emp.sut.VirtualThreads\$Chain.$m" '$1 == m { print $2 }' calls.csv)
        expect_eq "$what: traced calls of $m" "$(get ${m}_calls)" "$calls"
    done
    "$ANALYZE" calls --check --format=csv vt.emp >check.csv 2>check.err
    expect_eq "$what: calls --check exit status (stderr: $(cat check.err))" 0 $?
    expect_eq "$what: calls --check stderr" "" "$(cat check.err)"
    # file,traces,calls,threw,unclosed,exit_without_entry,eoi,ess,time,max_depth,never_closed,open_at_end,unbalanced
    expect_eq "$what: traces, unclosed, never closed, open at end, unbalanced exits" \
        "$((threads * rounds)) 0 0 0 0" \
        "$(awk -F, 'NR == 2 { print $2, $5, $11, $12, $13 }' check.csv)"
    expect_eq "$what: max_depth" 3 "$(awk -F, 'NR == 2 { print $10 }' check.csv)"
    # Every call ends within the run; the inner calls never unmount, so they fit in wall time x carriers.
    awk -F, -v wall="$wall_ns" -v car=$CARRIERS -v what="$what" '
        NR > 1 && $8 + 0 > wall { print what ": " $1 " max_ns " $8 " > wall time " wall; bad = 1 }
        NR > 1 && $1 ~ /inner$/ && $3 + 0 > wall * car { print what ": inner total_ns " $3 " > wall x carriers"; bad = 1 }
        END { exit bad }' calls.csv || fail "$what: call durations impossible (wall ${wall_ns} ns)"
    "$ANALYZE" info --format=csv vt.emp >info.csv || fail "$what: info failed"
    # threads table: file,thread,os_tid,name,events,samples,kind
    local vthreads per
    vthreads=$(awk -F, '$1 == "threads" && $8 == "virtual"' info.csv | wc -l)
    if [ "$kind" == virtual ]; then
        expect_eq "$what: virtual threads in the dump" "$threads" "$vthreads"
        per=$(awk -F, '$1 == "threads" && $8 == "virtual" { print $6 }' info.csv | sort -u | tr '\n' ' ')
        expect_eq "$what: events of every virtual thread" "$((8 * rounds)) " "$per"
        [ "$(get carrier_changes)" -gt 0 ] || fail "$what: no virtual thread changed carrier mid-call: nothing tested"
        # Chrome export: one track (tid) per virtual thread, each with its 4*K calls
        "$ANALYZE" export --chrome vt.json vt.emp 2>/dev/null || fail "$what: export --chrome failed"
        expect_eq "$what: Chrome tracks, calls per track" "$threads $((4 * rounds))" "$(python3 -c '
import collections, json, sys
x = collections.Counter(e["tid"] for e in json.load(open("vt.json"))["traceEvents"] if e["ph"] == "X")
print(len(x), " ".join(sorted({str(n) for n in x.values()})))')"
    else
        expect_eq "$what: virtual threads in the dump" 0 "$vthreads"
    fi
    echo "$what: ok ($(get carrier_changes) carrier changes mid-call, wall $((wall_ns / 1000000)) ms)"
}

# run_exit JAVA KIND WHAT: System.exit inside three open traced calls (and others open in other threads): the
# calls are cut by the exit, not a violation, though the exiting thread gets its ThreadEnd.
run_exit() {
    local n
    "$1" -agentpath:"$AGENT"=mode=trace,include='emp.sut.VirtualThreads$Chain',out=exit.emp -cp "$SUT" \
        emp.sut.VirtualThreads --kind "$2" --threads 50 --rounds 20 --exit-at 5 >out.txt 2>err.txt ||
        fail "$3: run failed: $(head -n 20 err.txt)"
    "$ANALYZE" calls --check --format=csv exit.emp >check.csv 2>check.err
    expect_eq "$3: calls --check exit status (stderr: $(cat check.err))" 0 $?
    expect_eq "$3: never closed, unbalanced exits" "0 0" "$(awk -F, 'NR == 2 { print $11, $13 }' check.csv)"
    n=$(awk -F, 'NR == 2 { print $12 }' check.csv)
    [ "$n" -ge 3 ] || fail "$3: open_at_end $n, expected at least the 3 calls System.exit is in"
    expect_eq "$3: calls --check stderr" \
        "emp-analyze calls: exit.emp: $n calls left open by System.exit or the end of the recording (open_at_end; not a violation)" \
        "$(cat check.err)"
    echo "$3: ok ($n calls open at System.exit)"
}

# run_jdk JAVA WHAT: the JDK's own virtual-thread machinery traced too (java.lang.VirtualThread, Continuation):
# the frames the JDK marks @JvmtiHideEvents run on the virtual thread's stack outside its mount and are never
# instrumented; every other call balances on its own thread, and the chain's counts stay exact.
run_jdk() {
    local m calls
    "$1" -agentpath:"$AGENT"=mode=trace,include='java.lang.*;jdk.internal.vm.*;emp.sut.*',out=jdk.emp -cp "$SUT" \
        emp.sut.VirtualThreads --threads 200 --rounds 5 >out.txt 2>err.txt || fail "$2: run failed: $(head -n 20 err.txt)"
    "$ANALYZE" calls --check --format=csv jdk.emp >check.csv 2>check.err
    expect_eq "$2: calls --check exit status (stderr: $(cat check.err))" 0 $?
    expect_eq "$2: never closed, exits without entry, unbalanced exits" "0 0 0" \
        "$(awk -F, 'NR == 2 { print $11, $6, $13 }' check.csv)"
    "$ANALYZE" calls --format=csv jdk.emp >calls.csv || fail "$2: calls failed"
    for m in outer:1000 middle:1000 inner:2000; do
        calls=$(awk -F, -v m="emp.sut.VirtualThreads\$Chain.${m%%:*}" '$1 == m { print $2 }' calls.csv)
        expect_eq "$2: traced calls of ${m%%:*}" "${m#*:}" "$calls"
    done
    echo "$2: ok ($(awk -F, 'NR == 2 { print $3 }' check.csv) calls)"
}

[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || fail "no java"
run "$JAVA" platform 50 20 'emp.sut.VirtualThreads$Chain' "$JAVA platform threads"
run_exit "$JAVA" platform "$JAVA platform threads, System.exit"
have_jdk25 || skip "trace vthreads: no JDK 25 at $JDK25, the virtual-thread part is not run"
run "$JDK25/bin/java" platform 50 20 'emp.sut.VirtualThreads$Chain' "JDK 25 platform threads"
run_exit "$JDK25/bin/java" virtual "JDK 25 virtual threads, System.exit"
run "$JDK25/bin/java" virtual 1000 20 'emp.sut.VirtualThreads$Chain' "JDK 25 virtual threads, FFM probes"
run "$JDK25/bin/java" virtual 300 20 'emp.sut.VirtualThreads$Chain;java.nothing.Selected' \
    "JDK 25 virtual threads, JNI probes"
run_jdk "$JDK25/bin/java" "JDK 25 virtual threads, JDK classes traced too"
echo "trace vthreads: ok"
