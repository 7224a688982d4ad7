#!/usr/bin/env bash
# trace_broad.sh - trace mode with include patterns that select JDK classes, JDK 17 and 25 (issue 4, design.md §3
# "The JVM must not notice us"): for each of  *  j*  java.*  java.lang.*  *.get*  java.util.*  jdk.*  sun.*  and one
# application-only pattern (Broad*, the FFM probe flavour on JDK 25), run tests/trace-broad/Broad.java -- a
# deterministic program over strings, lambdas, streams, collections, exceptions, reflection, method handles,
# threads, executors, the common pool, zip, java.sql and an uncaught exception, exit status 3 -- with -Xverify:all
# and the agent, and without the agent, and require:
#   - stdout, stderr and exit status byte-identical to the run without the agent;
#   - a complete dump whose traces validate (no eoi/ess/time violation, no exit without entry), ENTER events =
#     EXIT + EXIT_THROW + calls still open at the end, and no loss, unbalanced-exit, failed-class or
#     skipped-method counter set; at least one class rewritten.
# Also `java -version` and emp.sut.CallTree (first line, exit status) with include=*.  Prints the classes rewritten
# and retransformed, methods instrumented and skipped, and calls recorded per run.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"
JAVAC=$(dirname "$(readlink -f "$(command -v "$JAVA")")")/javac
[ -x "$JAVAC" ] || skip "no javac beside $JAVA"
"$JAVAC" --release 17 -d cls "$TOP/tests/trace-broad/Broad.java" || fail "javac Broad.java"

# check_dump DUMP WHAT: complete, valid, nothing lost; prints "calls unclosed"
check_dump() {
    local v c
    expect_eq "$2: dump status" complete \
        "$("$ANALYZE" info --format=csv "$1" | awk -F, '$1=="files"{print $3}')"
    v=$("$ANALYZE" calls --check --format=csv "$1" 2>&1) || fail "$2: calls --check: $v"
    # file,traces,calls,threw,unclosed,exit_without_entry,eoi_violations,ess_violations,time_violations,max_depth
    IFS=, read -r _ _ calls _ unclosed xwe eoi ess tv _ <<<"$(tail -n 1 <<<"$v")"
    expect_eq "$2: violations (exit without entry, eoi, ess, time)" "0 0 0 0" "$xwe $eoi $ess $tv"
    for c in lost_ring_full lost_after_shutdown lost_reentrant lost_no_thread_state trace_unbalanced_exit \
             write_errors classes_failed methods_skipped retransform_failed; do
        expect_eq "$2: counter $c" 0 "$(info_value "$1" counters "$c")"
    done
    local e x t
    e=$(info_value "$1" events enter); x=$(info_value "$1" events exit); t=$(info_value "$1" events exit_throw)
    expect_eq "$2: ENTER = EXIT + EXIT_THROW + still open" "$e" $((x + t + unclosed))
    echo "$calls $unclosed"
}

patterns=('*' 'j*' 'java.*' 'java.lang.*' '*.get*' 'java.util.*' 'jdk.*' 'sun.*' 'Broad*')
printf '%-4s %-12s %9s %9s %9s %8s %10s\n' jdk include rewritten retransf methods skipped calls
for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || { echo "no $jdk, skipping it"; continue; }
    v=$("$jdk" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')
    "$jdk" -Xverify:all -cp cls Broad >pure.out 2>pure.err
    prc=$?
    expect_eq "JDK $v: Broad without the agent exits" 3 "$prc"
    for pat in "${patterns[@]}"; do
        what="JDK $v include=$pat"
        "$jdk" -Xverify:all -agentpath:"$AGENT"=mode=trace,include="$pat",out=b.emp -cp cls Broad >b.out 2>b.err
        expect_eq "$what: exit status" "$prc" "$?"
        cmp -s b.out pure.out || fail "$what: stdout differs: $(diff b.out pure.out | head -n 6)"
        cmp -s b.err pure.err || fail "$what: stderr differs: $(diff b.err pure.err | head -n 6)"
        r=$(check_dump b.emp "$what") || fail "${r##*$'\n'}"
        rw=$(info_value b.emp counters classes_rewritten)
        [ "${rw:-0}" -gt 0 ] || fail "$what: no class rewritten"
        printf '%-4s %-12s %9s %9s %9s %8s %10s\n' "$v" "$pat" "$rw" "$(info_value b.emp counters classes_retransformed)" \
            "$(info_value b.emp counters methods_instrumented)" "$(info_value b.emp counters methods_skipped)" "${r%% *}"
    done

    # the JVM's own start-up and shutdown, everything traced
    "$jdk" -version >pure.out 2>&1; prc=$?
    "$jdk" -agentpath:"$AGENT"=mode=trace,include='*',out=v.emp -version >b.out 2>&1
    expect_eq "JDK $v java -version include=*: exit status" "$prc" "$?"
    cmp -s b.out pure.out || fail "JDK $v java -version include=*: output differs: $(diff b.out pure.out | head -n 6)"
    r=$(check_dump v.emp "JDK $v java -version include=*") || fail "${r##*$'\n'}"

    # a java-sut workload, everything traced (its timings vary: compare the parameter line and the status)
    "$jdk" -cp "$SUT" emp.sut.CallTree --warmup 3 --iterations 3 >pure.out 2>pure.err; prc=$?
    "$jdk" -agentpath:"$AGENT"=mode=trace,include='*',out=c.emp -cp "$SUT" emp.sut.CallTree --warmup 3 --iterations 3 \
        >b.out 2>b.err
    expect_eq "JDK $v CallTree include=*: exit status" "$prc" "$?"
    expect_eq "JDK $v CallTree include=*: first line" "$(head -n 1 pure.out)" "$(head -n 1 b.out)"
    cmp -s b.err pure.err || fail "JDK $v CallTree include=*: stderr differs: $(diff b.err pure.err | head -n 6)"
    r=$(check_dump c.emp "JDK $v CallTree include=*") || fail "${r##*$'\n'}"
    calls=$("$ANALYZE" calls --format=csv c.emp | awk -F, '$1=="emp.sut.CallTree.runIteration"{print $2}')
    expect_eq "JDK $v CallTree include=*: runIteration calls" 6 "$calls"
done
echo "trace_broad: ok"
