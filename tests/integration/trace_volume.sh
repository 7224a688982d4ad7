#!/usr/bin/env bash
# trace_volume.sh - volume: TRACE_CALLS traced calls (MooBench TRACE_CALLS/10 top-level calls x depth 10) with the
# file writer and onfull=block on JDK 17: the dump holds exactly 2 x calls records (ENTER = EXIT = calls), every
# loss counter is zero, the dump is complete and every trace validates.  make test runs 10^7 calls (~10 s);
# `make soak-trace` runs 10^8 (~1.5 min on 2 cores, 240 MB of dump in $TMPDIR).
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"
calls_total=${TRACE_CALLS:-10000000}
depth=10
top=$((calls_total / depth))
"$JAVA" -agentpath:"$AGENT"=mode=trace,include=emp.sut.MooBench.monitoredMethod,out=vol.emp -cp "$SUT" \
    emp.sut.MooBench --calls $top --depth $depth >/dev/null 2>err.txt || fail "MooBench run failed: $(cat err.txt)"
expect_eq "ENTER events" $calls_total "$(info_value vol.emp events enter)"
expect_eq "EXIT events" $calls_total "$(info_value vol.emp events exit)"
expect_eq "records_written" $((2 * calls_total)) "$(info_value vol.emp counters records_written)"
for c in lost_ring_full lost_after_shutdown lost_reentrant lost_no_thread_state trace_unbalanced_exit write_errors; do
    expect_eq "counter $c" 0 "$(info_value vol.emp counters "$c")"
done
"$ANALYZE" calls --check --format=csv vol.emp >check.csv 2>check.err || fail "calls --check: $(cat check.err check.csv)"
expect_eq "traces calls unclosed exits-without-entry eoi ess time" "$top $calls_total 0 0 0 0 0" \
    "$(awk -F, 'NR==2{print $2, $3, $5, $6, $7, $8, $9}' check.csv)"
echo "trace volume: $calls_total calls, $((2 * calls_total)) records, $(stat -c %s vol.emp) bytes," \
     "$(info_value vol.emp counters ring_full_waits) ring-full waits, nothing lost"
