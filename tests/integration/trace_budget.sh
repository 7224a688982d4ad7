#!/usr/bin/env bash
# Trace mode's budget= and the probes' removal at the end of a recording (issue 11 item 1, issue 10), JDK 17 and 25,
# on emp.sut.Budget (two tiny methods called 2 × TINY times a round, two heavy ones once a round):
#   budget=1  leaves the one method under 36 bytes (the constructor) uninstrumented and instruments the 7 others;
#             removes the probes of exactly tinyA and tinyB (their cost is far over 1 % of the CPU time, that of the
#             others nothing) by switching them off in emp/Guard (no class retransformed), names both in the dump and
#             marks them in `calls`; heavyA, heavyB and hot keep every
#             call; calls --check passes; the program's stdout is that of the run without the agent;
#   duration= ends the recording early: the rewritten class gets its original bytes back (classes_restored 1), the
#             program goes on with the same stdout;
#   budget=0, -5, 101, abc are refused at start with one line (the JVM does not start, as for every bad option).
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
ROUNDS=20
TINY=200000
ARGS=(-cp "$SUT" emp.sut.Budget --rounds $ROUNDS --tiny $TINY --steps 20000000)
INC='include=emp.sut.Budget.*'

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || fail "no $jdk"
    v=$("$jdk" -version 2>&1 | head -1)
    echo "== $v"
    "$jdk" "${ARGS[@]}" >pure.out 2>pure.err || fail "$v: pure run exit $?"
    expect_eq "$v pure run" "tiny calls $((2 * ROUNDS * TINY))|rounds $ROUNDS" "$(tail -2 pure.out | paste -sd'|')"

    # budget=1
    "$jdk" -agentpath:"$AGENT"=mode=trace,$INC,budget=1,out=b.emp "${ARGS[@]}" >b.out 2>b.err ||
        fail "$v budget: exit $?: $(cat b.err)"
    cmp -s pure.out b.out || fail "$v budget: stdout differs: $(diff pure.out b.out)"
    [ -s b.err ] && fail "$v budget: stderr: $(cat b.err)"
    expect_eq "$v budget_pct" 1 "$(info_value b.emp meta budget_pct)"
    expect_eq "$v budget_methods_removed" 2 "$(info_value b.emp counters budget_methods_removed)"
    # the one method under 36 bytes of bytecode (the constructor, 5) is left uninstrumented; the others are traced
    expect_eq "$v budget_methods_small" 1 "$(info_value b.emp counters budget_methods_small)"
    expect_eq "$v methods_instrumented" 7 "$(info_value b.emp counters methods_instrumented)"
    # switched off in emp/Guard, not retransformed
    expect_eq "$v classes_retransformed" 0 "$(info_value b.emp counters classes_retransformed)"
    expect_eq "$v META deinstrumented entries" 2 \
        "$("$ANALYZE" info --format=csv b.emp | grep -c '^meta,b.emp,deinstrumented\.[0-9]*,calls=[0-9]* self_ns=[0-9]* at_ticks=[0-9]* reason=budget$')"
    "$ANALYZE" calls --format=csv b.emp >calls.csv || fail "$v: calls exit $?"
    expect_eq "$v marked methods" "emp.sut.Budget.tinyA [de-instrumented]|emp.sut.Budget.tinyB [de-instrumented]" \
        "$(awk -F, '/de-instrumented/ { print $1 }' calls.csv | sort | paste -sd'|')"
    for m in heavyA heavyB hot; do
        expect_eq "$v calls of $m" $ROUNDS "$(awk -F, -v m="emp.sut.Budget.$m" '$1 == m { print $2 }' calls.csv)"
    done
    # tiny calls recorded before the removal: some, not all
    read -r a b < <(awk -F, '/tinyA/ { a = $2 } /tinyB/ { b = $2 } END { print a + 0, b + 0 }' calls.csv)
    [ "$a" -gt 0 ] && [ "$a" -lt $((ROUNDS * TINY)) ] && [ "$b" -gt 0 ] && [ "$b" -lt $((ROUNDS * TINY)) ] ||
        fail "$v: tinyA $a, tinyB $b calls recorded; expected between 1 and $((ROUNDS * TINY - 1))"
    "$ANALYZE" calls --check b.emp >/dev/null 2>check.err || fail "$v budget: calls --check: $(cat check.err)"
    "$ANALYZE" calls b.emp | grep -q '^b.emp: 2 methods de-instrumented (marked \[de-instrumented\]); about [0-9.]* % of the traced time is no longer covered' ||
        fail "$v: calls does not say how much is no longer covered"
    "$ANALYZE" tree b.emp | grep -q 'emp.sut.Budget.tinyA \[de-instrumented\]$' || fail "$v: tree does not mark tinyA"

    # no budget: nothing removed
    "$jdk" -agentpath:"$AGENT"=mode=trace,$INC,out=n.emp "${ARGS[@]}" >n.out 2>n.err || fail "$v: exit $?"
    expect_eq "$v no budget: budget_methods_removed" 0 "$(info_value n.emp counters budget_methods_removed)"
    expect_eq "$v no budget: budget_methods_small" 0 "$(info_value n.emp counters budget_methods_small)"
    expect_eq "$v no budget: methods_instrumented" 8 "$(info_value n.emp counters methods_instrumented)"
    expect_eq "$v no budget: tinyA calls" $((ROUNDS * TINY)) \
        "$("$ANALYZE" calls --format=csv n.emp | awk -F, '$1 == "emp.sut.Budget.tinyA" { print $2 }')"
    expect_eq "$v no budget: classes_restored" 0 "$(info_value n.emp counters classes_restored)"

    # duration= ends the recording while the program runs on: the class is restored
    "$jdk" -agentpath:"$AGENT"=mode=trace,$INC,duration=1s,out=d.emp "${ARGS[@]}" >d.out 2>d.err ||
        fail "$v duration: exit $?: $(cat d.err)"
    cmp -s pure.out d.out || fail "$v duration: stdout differs: $(diff pure.out d.out)"
    [ -s d.err ] && fail "$v duration: stderr: $(cat d.err)"
    expect_eq "$v duration end_reason" duration "$(info_value d.emp meta end_reason)"
    expect_eq "$v classes_rewritten before the end" 1 "$(info_value d.emp counters classes_rewritten)"
    expect_eq "$v classes_restored" 1 "$(info_value d.emp counters classes_restored)"
    expect_eq "$v retransform_failed" 0 "$(info_value d.emp counters retransform_failed)"

    # budgets that can never hold
    for b in 0 -5 101 abc ''; do
        "$jdk" -agentpath:"$AGENT"=mode=trace,$INC,budget=$b "${ARGS[@]}" >bad.out 2>bad.err &&
            fail "$v: budget=$b was accepted"
        expect_eq "$v budget=$b" \
            "emp: budget=$b: expected a percentage above 0 and at most 100 (a budget of 0 can never hold)" \
            "$(grep '^emp:' bad.err)"
    done
done
echo "trace_budget: ok"
