#!/usr/bin/env bash
# trace_sut.sh - trace mode on the java-sut workloads, JDK 17 and 25, every emp.sut method instrumented:
#   - CallTree at depth 2 and 4 (small --leaf-calls): exact calls of runIteration, of every tree method and of
#     task, from the parameters (java-sut/README.md), and the ess of each tree level;
#   - MooBench: calls x depth calls of monitoredMethod;
#   - every trace valid (eoi 0..n-1, ess, calls inside their callers in time), no loss counter set, the dump's
#     ENTER count equals its EXIT + EXIT_THROW count plus the calls still open;
#   - writer=null: the run succeeds and writes no events; onfull=drop with a tiny ring: events written plus
#     lost_ring_full equal exactly 2 x calls, and what was written still validates;
#   - writer=tcp: `emp-analyze receive` stores a complete dump with the exact calls.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"

# calls_of DUMP: "method calls threw" lines (methods with descriptors) of `emp-analyze calls`
calls_of() {
    "$ANALYZE" calls --signatures --format=csv "$1" 2>/dev/null |
        python3 -c 'import csv,sys
for r in csv.DictReader(sys.stdin): print(r["method"], r["calls"], r["threw"])'
}
# check_valid DUMP: zero violations of every kind; prints nothing on success
check_valid() {
    local v
    v=$("$ANALYZE" calls --check --format=csv "$1" 2>"$TMP/check.err") || fail "calls --check $1: $(cat "$TMP/check.err") $v"
    python3 - "$v" <<'PY' || fail "trace validation of $1: $v"
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert len(rows) == 1
r = rows[0]
bad = [k for k in ("exit_without_entry", "eoi_violations", "ess_violations", "time_violations") if r[k] != "0"]
sys.exit(1 if bad else 0)
PY
    for c in lost_ring_full lost_after_shutdown lost_reentrant lost_no_thread_state trace_unbalanced_exit \
             write_errors classes_failed methods_skipped; do
        expect_eq "$1: counter $c" 0 "$(info_value "$1" counters "$c")"
    done
    local enters exits throws unclosed
    enters=$(info_value "$1" events enter); exits=$(info_value "$1" events exit)
    throws=$(info_value "$1" events exit_throw)
    unclosed=$("$ANALYZE" calls --check --format=csv "$1" | awk -F, 'NR==2{print $5}')
    expect_eq "$1: ENTER events = EXIT + EXIT_THROW + still open" "$enters" $((exits + throws + unclosed))
}
# expect_calls CALLS_FILE METHOD N
expect_calls() {
    local got
    got=$(awk -v m="$2" '$1==m{print $2}' "$1")
    expect_eq "calls of $2" "$3" "${got:-0}"
}

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || { echo "no $jdk, skipping it"; continue; }
    v=$("$jdk" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')

    for d in 2 4; do
        w=3; it=5; m=6
        out=ct$d-$v.emp
        "$jdk" -Xverify:all -agentpath:"$AGENT"=mode=trace,include=emp.sut.*,out=$out -cp "$SUT" emp.sut.CallTree \
            --depth $d --leaf-calls $m --task-size 10 --warmup $w --iterations $it >ct.out 2>ct.err ||
            fail "JDK $v CallTree depth $d: $(cat ct.err)"
        "$jdk" -cp "$SUT" emp.sut.CallTree --depth $d --leaf-calls $m --task-size 10 --warmup $w --iterations $it \
            >ct.pure 2>/dev/null
        diff <(head -n 1 ct.out) <(head -n 1 ct.pure) >/dev/null || fail "JDK $v: CallTree output differs under the agent"
        slow=$(sed -n 's/.* slow_reps=\([0-9]*\).*/\1/p' ct.out); unch=$(sed -n 's/.* unchanged_reps=\([0-9]*\).*/\1/p' ct.out)
        n=$((w + it))
        check_valid "$out"
        calls_of "$out" >calls.txt
        expect_calls calls.txt "emp.sut.CallTree.runIteration()V" $n
        expect_calls calls.txt "emp.sut.CallTree.task(J)J" $(((slow + unch) * n))
        expect_calls calls.txt "emp.sut.tree.D$d.root()V" $n
        tree=0
        for ((k = 1; k <= d; k++)); do
            for ((i = 0; i < (1 << k); i++)); do expect_calls calls.txt "emp.sut.tree.D$d.node_${k}_$i()V" $n; done
        done
        for ((i = 0; i < (1 << (d + 1)); i++)); do expect_calls calls.txt "emp.sut.tree.D$d.leaf_$i()V" $n; done
        tree=$(awk -v p="emp.sut.tree.D$d." 'index($1,p)==1{s+=$2; k++} END{print k, s}' calls.txt)
        expect_eq "JDK $v depth $d: tree methods and their calls" "$(((1 << (d + 2)) - 1)) $((((1 << (d + 2)) - 1) * n))" "$tree"
        # Chrome export: valid JSON, one X event per call (the calls table's count), the compact form (only the
        # keys below; ts/dur without trailing zeros), and each tree level at its depth: ess (depth from the trace
        # root, CallTree.main) is not written, the nesting of the slices says it
        "$ANALYZE" export --chrome ct.json "$out" 2>/dev/null || fail "export --chrome"
        python3 - ct.json $d "$(awk '{s += $2} END {print s}' calls.txt)" <<'PY' || fail "JDK $v depth $d: Chrome export"
import json, sys, re
raw = open(sys.argv[1]).read()
ev = [e for e in json.loads(raw)["traceEvents"] if e["ph"] == "X"]
d, calls = int(sys.argv[2]), int(sys.argv[3])
assert len(ev) == calls, (len(ev), calls)
for e in ev:
    assert set(e) <= {"name", "ph", "ts", "dur", "pid", "tid", "args"}, e
assert not re.search(r'"(ts|dur)":-?[0-9]+\.[0-9]*0[,}]', raw), "trailing zero in ts/dur"
# depth by containment, per thread; ties (same ts and dur) keep the file's order: a callee is written before its caller
depth = {}
for tid in {e["tid"] for e in ev}:
    mine = sorted(((round(e["ts"] * 1000), round(e["dur"] * 1000), -i) for i, e in enumerate(ev) if e["tid"] == tid),
                  key=lambda t: (t[0], -t[1], t[2]))
    stack = []
    for ts, dur, ni in mine:
        while stack and not (stack[-1][0] <= ts and ts + dur <= stack[-1][1]):
            stack.pop()
        depth[-ni] = len(stack)
        stack.append((ts, ts + dur))
run = {depth[i] for i, e in enumerate(ev) if e["name"] == "emp.sut.CallTree.runIteration"}
assert len(run) == 1, run
r = run.pop()
def lvl(name):
    m = re.match(r"emp\.sut\.tree\.D\d+\.(root|node_(\d+)_\d+|leaf_\d+)$", name)
    if not m: return None
    return 1 if m.group(1) == "root" else int(m.group(2)) + 1 if m.group(2) else d + 2
for i, e in enumerate(ev):
    l = lvl(e["name"])
    if l is not None and depth[i] != r + l:
        sys.exit(f"{e['name']} depth {depth[i]} != {r + l}")
    if e["name"] == "emp.sut.CallTree.task" and depth[i] != r + d + 3:
        sys.exit("task depth")
PY
    done

    calls=2000; depth=10
    out=moo-$v.emp
    "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.*,out=$out -cp "$SUT" emp.sut.MooBench \
        --calls $calls --depth $depth >/dev/null 2>moo.err || fail "JDK $v MooBench: $(cat moo.err)"
    check_valid "$out"
    calls_of "$out" >calls.txt
    expect_calls calls.txt "emp.sut.MooBench.monitoredMethod(JI)J" $((calls * depth))

    # compress=none and lz4 (the default, auto, stores a chunk only while the writer is behind): the same trace,
    # its chunks stored or every one compressed, read the same way, the stored one larger
    for comp in none lz4; do
        "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.*,compress=$comp,out=moo-$comp.emp -cp "$SUT" \
            emp.sut.MooBench --calls $calls --depth $depth >/dev/null 2>moo.err || fail "JDK $v compress=$comp: $(cat moo.err)"
        check_valid moo-$comp.emp
        calls_of moo-$comp.emp >calls-$comp.txt
        expect_calls calls-$comp.txt "emp.sut.MooBench.monitoredMethod(JI)J" $((calls * depth))
        expect_eq "JDK $v compress=$comp: chunks_stored (auto's count)" 0 "$(info_value moo-$comp.emp counters chunks_stored)"
    done
    [ "$(stat -c %s moo-none.emp)" -gt "$(stat -c %s moo-lz4.emp)" ] || fail "JDK $v compress=none: not larger than LZ4"

    # writer=null: the probes run, nothing is written
    mkdir -p null && (cd null && "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.MooBench.monitoredMethod,writer=null \
        -cp "$SUT" emp.sut.MooBench --calls $calls --depth $depth >/dev/null 2>../null.err) ||
        fail "JDK $v writer=null: $(cat null.err)"
    [ -z "$(ls null)" ] || fail "writer=null left a file: $(ls null)"

    # onfull=drop with a 64K ring: written + dropped = every record, and what is written nests
    calls=50000
    "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.MooBench.monitoredMethod,onfull=drop,ringsize=64K,out=drop.emp \
        -cp "$SUT" emp.sut.MooBench --calls $calls --depth $depth >/dev/null 2>drop.err || fail "JDK $v onfull=drop: $(cat drop.err)"
    e=$(info_value drop.emp events enter); x=$(info_value drop.emp events exit); l=$(info_value drop.emp counters lost_ring_full)
    expect_eq "onfull=drop: enters = exits" "$e" "$x"
    expect_eq "onfull=drop: written + lost_ring_full" $((2 * calls * depth)) $((e + x + l))
    echo "JDK $v onfull=drop: $l of $((2 * calls * depth)) records dropped"
    v2=$("$ANALYZE" calls --check --format=csv drop.emp | awk -F, 'NR==2{print $6+$7+$8+$9}')
    expect_eq "onfull=drop: violations" 0 "$v2"

    # writer=tcp through emp-analyze receive
    rm -f port
    "$ANALYZE" receive --listen 0 --bind 127.0.0.1 --port-file port --timeout 60 -o tcp.emp >recv.out 2>recv.err &
    rpid=$!
    for _ in $(seq 100); do [ -s port ] && break; sleep 0.1; done
    [ -s port ] || fail "receive did not listen: $(cat recv.err)"
    calls=3000
    "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.MooBench.monitoredMethod,writer=tcp:127.0.0.1:$(cat port) \
        -cp "$SUT" emp.sut.MooBench --calls $calls --depth $depth >/dev/null 2>tcp.err || fail "JDK $v writer=tcp: $(cat tcp.err)"
    wait $rpid || fail "receive exit $?: $(cat recv.err)"
    grep -q complete recv.out || fail "receive: $(cat recv.out)"
    check_valid tcp.emp
    calls_of tcp.emp >calls.txt
    expect_calls calls.txt "emp.sut.MooBench.monitoredMethod(JI)J" $((calls * depth))
    echo "JDK $v: CallTree depth 2/4, MooBench, writer=null, onfull=drop, writer=tcp ok"
done
echo "trace sut: ok"
