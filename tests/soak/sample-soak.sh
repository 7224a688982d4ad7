#!/usr/bin/env bash
# The sampling soak behind `make soak`: mode=sample,interval=1ms over emp.sut.Soak for SOAK_SECONDS on JDK 17 and
# 25 (when present).  Passes when every JVM exits 0, its dump is complete (END chunk, reason vm_death) and the
# program's stdout is its own; prints the sampler's counters (outcomes, losses, recovered faults) of each run.
source "$(dirname "$0")/../lib/common.sh"
: "${SOAK_SECONDS:=600}"
jdks=("$JAVA")
have_jdk25 && jdks+=("$JDK25/bin/java")
status=0
for jdk in "${jdks[@]}"; do
    echo "== soak: $jdk, $SOAK_SECONDS s at interval=1ms"
    out="$TMP/soak.emp"
    rm -f "$out"
    if ! "$jdk" -Xmx256m -agentpath:"$AGENT"=mode=sample,interval=1ms,out="$out" -cp "$SUT" emp.sut.Soak \
        --seconds "$SOAK_SECONDS" --threads 4 >"$TMP/stdout" 2>"$TMP/stderr"; then
        echo "FAIL: $jdk exited with status $? ($(tail -n 5 "$TMP/stderr"))"
        status=1
    fi
    grep -q "^soak done" "$TMP/stdout" || { echo "FAIL: no 'soak done' line on stdout"; status=1; }
    st=$("$ANALYZE" info --format=csv "$out" 2>/dev/null | awk -F, '$1=="files"{print $3}')
    reason=$(info_value "$out" meta end_reason)
    echo "dump: $st, end reason $reason, $(stat -c %s "$out" 2>/dev/null) bytes"
    [ "$st" = complete ] && [ "$reason" = vm_death ] || { echo "FAIL: dump not complete"; status=1; }
    "$ANALYZE" info --format=csv "$out" 2>/dev/null |
        awk -F, '$1=="counters" && $4 != 0 && $3 ~ /^(samples|sample_|agct_|lost_|threads)/ {printf "  %-32s %s\n", $3, $4}'
    "$ANALYZE" top --limit 5 "$out" 2>/dev/null | sed -n '1,4p'
done
[ $status -eq 0 ] && echo "soak: ok" || echo "soak: FAILED"
exit $status
