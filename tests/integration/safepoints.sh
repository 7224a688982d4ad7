#!/usr/bin/env bash
# safepoints.sh - safepoint pauses in the dump (safepoints=on, the default), on JDK 17 and 25.  SafepointOps forces
# N = 20 safepoints that are not GC (Thread.getAllStackTraces), each inside one request of an emp-load log, and
# reads the JVM's own sun.rt.safepoints before (C0) and after (C1).  Checks, with a heap too large to collect:
#  - the JVM: C1 - C0 >= N; no GC pause recorded;
#  - emp-analyze latency LOG DUMP, table safepoints: every one of the N requests waited through a recorded
#    safepoint pause (requests_through_safepoint = N), and N <= entries within the log's span <= C1 - C0 (each
#    entry holds at least one safepoint, and the span lies inside the program's C0..C1 window); the SVG shades
#    exactly the entries within the span, in the safepoint colour;
#  - counters: safepoints (all the JVM began while the poller ran) >= C1 - C0; safepoint_pauses = the PAUSES entries
#    of kinds safepoint + safepoint_gc (info's pauses table); lost_safepoint_pause_full = 0;
#  - N collections (System.gc, Serial GC) instead: gc_pauses = N = the safepoint_gc entries (each GC's safepoint
#    is told apart), and every request waited through a GC pause;
#  - safepoints=off: no safepoint entry, counter 0; -XX:-UsePerfData: one warning, the program unchanged, none.
source "$(dirname "$0")/../lib/common.sh"
for f in "$ANALYZE" "$AGENT"; do [ -e "$f" ] || fail "no $f (make)"; done
N=20
mkdir "$TMP/cls"
javac --add-exports java.management/sun.management=ALL-UNNAMED -d "$TMP/cls" "$TOP/tests/tools/SafepointOps.java" \
    2>"$TMP/javac.err" || fail "javac SafepointOps: $(cat "$TMP/javac.err")"
X=(--add-exports java.management/sun.management=ALL-UNNAMED -Xms512m -Xmx512m -cp "$TMP/cls" SafepointOps "$N")

run() { # JAVA TAG
    local java=$1 tag=$2 dump=$TMP/$2.emp log=$TMP/$2.csv out c0 c1
    out=$("$java" -agentpath:"$AGENT"=mode=off,out="$dump" "${X[@]}" "$log" 2>"$TMP/$tag.err") ||
        fail "$tag: SafepointOps failed: $(cat "$TMP/$tag.err")"
    [ -s "$TMP/$tag.err" ] && fail "$tag: stderr: $(cat "$TMP/$tag.err")"
    read -r _ c0 c1 <<<"$out"
    [ $((c1 - c0)) -ge "$N" ] || fail "$tag: the JVM counted $((c1 - c0)) safepoints for $N thread dumps"
    expect_eq "$tag: gc_pauses" 0 "$(info_value "$dump" counters gc_pauses)"
    local row entries inspan through
    row=$("$ANALYZE" latency --format=csv "$log" "$dump" -o "$TMP/$tag.svg" | awk -F, '$1 == "safepoints"')
    entries=$(echo "$row" | cut -d, -f3); inspan=$(echo "$row" | cut -d, -f4); through=$(echo "$row" | cut -d, -f7)
    expect_eq "$tag: requests that waited through a safepoint" "$N" "$through"
    [ "$inspan" -ge "$N" ] && [ "$inspan" -le $((c1 - c0)) ] ||
        fail "$tag: $inspan safepoint entries within the log's span, expected $N .. $((c1 - c0)) (JVM's count)"
    expect_eq "$tag: shaded safepoints in the SVG" "$inspan" "$(grep -c '<title>safepoint ' "$TMP/$tag.svg")"
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/$tag.svg" ||
        fail "$tag: SVG is not well-formed"
    local counted kept sp spgc
    counted=$(info_value "$dump" counters safepoints); kept=$(info_value "$dump" counters safepoint_pauses)
    sp=$(info_value "$dump" pauses safepoint); spgc=$(info_value "$dump" pauses safepoint_gc)
    [ "$counted" -ge $((c1 - c0)) ] || fail "$tag: safepoints counter $counted < the program's window $((c1 - c0))"
    expect_eq "$tag: safepoint_pauses counter vs PAUSES entries" "$kept" "$((sp + spgc))"
    expect_eq "$tag: safepoint entries (all) vs latency's count" "$sp" "$entries"
    expect_eq "$tag: lost_safepoint_pause_full" 0 "$(info_value "$dump" counters lost_safepoint_pause_full)"
    echo "$tag: JVM $((c1 - c0)) safepoints in the window, $inspan entries there, $N/$N requests through one;" \
        "whole run: $counted safepoints, $sp + $spgc entries"

    "$java" -XX:+UseSerialGC -agentpath:"$AGENT"=mode=off,out="$dump" "${X[@]}" "$log" gc >/dev/null ||
        fail "$tag: System.gc run failed"
    expect_eq "$tag: gc: gc_pauses" "$N" "$(info_value "$dump" counters gc_pauses)"
    expect_eq "$tag: gc: safepoint_gc entries" "$N" "$(info_value "$dump" pauses safepoint_gc)"
    row=$("$ANALYZE" latency --format=csv "$log" "$dump" | awk -F, '$1 == "gc"')
    expect_eq "$tag: gc: requests that waited through a GC pause" "$N" "$(echo "$row" | cut -d, -f7)"

    "$java" -agentpath:"$AGENT"=mode=off,safepoints=off,out="$dump" "${X[@]}" "$log" >/dev/null ||
        fail "$tag: safepoints=off run failed"
    expect_eq "$tag: safepoints=off: counter" 0 "$(info_value "$dump" counters safepoints)"
    expect_eq "$tag: safepoints=off: entries" 0 "$(info_value "$dump" pauses safepoint)"

    out=$("$java" -XX:-UsePerfData -agentpath:"$AGENT"=mode=off,out="$dump" -cp "$SUT" emp.sut.QuickSort 2>"$TMP/$tag.err" |
        tail -1) || fail "$tag: -UsePerfData run failed: $(cat "$TMP/$tag.err")"
    expect_eq "$tag: -UsePerfData: stderr" "emp: safepoints=on: no hsperfdata mapping (-XX:-UsePerfData or -XX:+PerfDisableSharedMemory?); safepoint pauses are not recorded" "$(cat "$TMP/$tag.err")"
    expect_eq "$tag: -UsePerfData: entries" 0 "$(info_value "$dump" pauses safepoint)"
}
run "$JAVA" java
if have_jdk25; then run "$JDK25/bin/java" jdk25; else echo "jdk25: not installed, JDK 17 only"; fi
echo "safepoints: all checks passed"
