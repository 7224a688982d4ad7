#!/usr/bin/env bash
# rewriter_corpus.sh - the bytecode rewriter's verification harness.
# Rewrites every class of the Java corpus (tests/java-corpus, every method selected) with
# build/tests/emp_rewrite_tool, runs it with -Xverify:all against the counting probe stub
# (tests/java-corpus/stub/emp/Probe.java) on JDK 17 and JDK 25, and checks:
#   - the output equals the uninstrumented run's;
#   - every selected method was instrumented (no skips), the generated huge method needed goto_w;
#   - no exit/exitThrow mismatched the innermost entry, no entry was left open, and for every probe id
#     enters == exits + exitThrows;
#   - the exact counts of tests/java-corpus/expected-counts.txt.
# Run twice: probe ids from 0 (iconst/bipush/sipush pushes) and from 100000 (ldc of an Integer constant);
# then the guarded shape (-g: the entry's decision in a new local, every stack-map frame extended) calling the
# agent's emp/Guard, whose switches the stub plays (-Demp.probe.guarded): no id % 3 == 0 recorded, ids % 3 == 1 until
# a switch mid-run, every id % 3 == 2: those exact, the switched ones at most the expected count, every recorded
# entry with its exit;
# then a --release 8 subset relabelled as class-file version 49 (old verifier, no stack maps), both shapes.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"

JAVAC=${JAVAC:-$(dirname "$(command -v "$JAVA" 2>/dev/null || echo /nonexistent/java)")/javac}
JAVAP=$(dirname "$JAVAC")/javap
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] && [ -x "$JAVAC" ] || skip "no JDK (java/javac) found"

TOOL=$TOP/$BUILD/tests/emp_rewrite_tool
CORPUS=$TOP/$BUILD/java-corpus
if [ ! -x "$TOOL" ] || [ ! -f "$CORPUS/.built" ]; then
    make -C "$TOP" --no-print-directory BUILD="$BUILD" rewriter-corpus >/dev/null || fail "cannot build the rewriter corpus"
fi
EXPECTED=$TOP/tests/java-corpus/expected-counts.txt

"$JAVAP" -c -p -cp "$CORPUS/classes" corpus.Huge | grep -q goto_w && fail "javac already used goto_w in corpus.Huge (regenerate it smaller)"

"$JAVA" -cp "$CORPUS/classes" corpus.Main >"$TMP/plain.txt" 2>&1 || fail "uninstrumented corpus run failed: $(tail -n 3 "$TMP/plain.txt")"
grep -q '^done: ok$' "$TMP/plain.txt" || fail "uninstrumented corpus run incomplete"

# check_probe PROBE_OUT MAP LABEL [EXPECTED_FILE [guarded]]
check_probe() {
    python3 - "$1" "$2" "${4:-$EXPECTED}" "$3" "${5:-}" <<'PY' || exit 1
import sys
probe, mapf, expf, label, guarded = sys.argv[1:6]
names = {}
for line in open(mapf):
    i, n = line.split(' ', 1)
    names[int(i)] = n.strip()
counts, mism, opened, notes = {}, None, None, []
for line in open(probe):
    f = line.split()
    if not f: continue
    if f[0] == 'mismatches': mism = int(f[1])
    elif f[0] == 'open': opened = int(f[1])
    elif f[0] == '#': notes.append(line.strip())
    else: counts[int(f[0])] = tuple(int(x) for x in f[1:4])
bad = []
if mism != 0 or opened != 0:
    bad.append(f"{mism} mismatches, {opened} open entries: " + "; ".join(notes[:5]))
for i, (e, x, t) in counts.items():
    if i not in names: bad.append(f"probe id {i} not in the map")
    elif e != x + t: bad.append(f"{names[i]}: {e} enters != {x} exits + {t} exitThrows")
by_name = {names[i]: c for i, c in counts.items() if i in names}
ids = {n: i for i, n in names.items()}
if guarded:
    for i, (e, x, t) in counts.items():
        if i % 3 == 0: bad.append(f"{names.get(i)}: id {i} is off in emp.Guard, yet {e} entries recorded")
nexp = switched = 0
for line in (open(expf) if expf != '-' else []):
    line = line.strip()
    if not line or line.startswith('#'): continue
    n, e, x, t = line.split()
    got = by_name.get(n, (0, 0, 0))
    k = ids[n] % 3 if guarded and n in ids else 2
    if k == 0:
        continue
    if k == 1:
        if got[0] > int(e): bad.append(f"{n}: {got[0]} entries recorded, more than the {e} made")
        switched += 0 < got[0] < int(e)
        continue
    nexp += 1
    if got != (int(e), int(x), int(t)):
        bad.append(f"{n}: expected enters/exits/throws {e}/{x}/{t}, got {got[0]}/{got[1]}/{got[2]}")
if guarded and expf != '-' and not switched:
    bad.append("emp.Guard switched no method off while it was being called")
if bad:
    print(f"FAIL ({label}):"); [print("  " + b) for b in bad[:30]]
    sys.exit(1)
print(f"{label}: {len(counts)} methods ran, {sum(c[0] for c in counts.values())} calls, {nexp} exact counts ok" +
      (f", {switched} switched off mid-run" if guarded else ""))
PY
}

run_one() { # run_one LABEL JAVA FIRST_ID [-g]
    local label=$1 java=$2 base=$3 shape=${4:-} out=$TMP/$1
    mkdir -p "$out"
    "$TOOL" -b "$base" $shape -m "$out/map.txt" "$CORPUS/classes" "$out/classes" >"$out/tool.txt" 2>&1 ||
        fail "$label: rewrite tool failed: $(cat "$out/tool.txt")"
    local selected instrumented
    selected=$(wc -l <"$out/map.txt")
    instrumented=$(sed -n 's/.*methods instrumented \([0-9]*\).*/\1/p' "$out/tool.txt")
    expect_eq "$label: methods instrumented (of $selected selected; $(tr '\n' ' ' <"$out/tool.txt"))" "$selected" "$instrumented"
    "$JAVAP" -c -p -cp "$out/classes" corpus.Huge | grep -q goto_w || fail "$label: corpus.Huge was not widened to goto_w"
    "$java" -Xverify:all -Demp.probe.out="$out/probe.txt" -cp "$out/classes:$CORPUS/stub" \
        ${shape:+-Demp.probe.guarded=true emp.Probe} corpus.Main \
        >"$out/run.txt" 2>&1 || fail "$label: instrumented run failed: $(head -n 20 "$out/run.txt")"
    diff -u "$TMP/plain.txt" "$out/run.txt" >"$out/diff.txt" || fail "$label: output differs: $(head -n 30 "$out/diff.txt")"
    [ -f "$out/probe.txt" ] || fail "$label: the probe stub wrote no report"
    check_probe "$out/probe.txt" "$out/map.txt" "$label" "$EXPECTED" "$shape"
}

# Version 49 class files (no StackMapTable; the old type-inferencing verifier): a --release 8 build of a
# corpus subset without invokedynamic, relabelled as major 49.
old_classes() {
    local d=$TMP/v49
    mkdir -p "$d/src/corpus" "$d/classes"
    cp "$TOP"/tests/java-corpus/src/corpus/{Exceptions,Ctors,Recursion}.java "$d/src/corpus/"
    cat >"$d/src/corpus/Main.java" <<'JAVA'
package corpus;
public final class Main {
    static void out(String s, Object r) { System.out.println(s + ": " + r); }
    public static void main(String[] a) { Exceptions.run(); Ctors.run(); Recursion.run(); }
}
JAVA
    "$JAVAC" -nowarn --release 8 -d "$d/classes" "$d"/src/corpus/*.java 2>/dev/null || fail "javac --release 8 failed"
    python3 - "$d/classes" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith('.class'):
            p = os.path.join(root, f); b = bytearray(open(p, 'rb').read()); b[6:8] = b'\x00\x31'; open(p, 'wb').write(b)
PY
    "$JAVA" -Xverify:all -cp "$d/classes" corpus.Main >"$d/plain.txt" 2>&1 || fail "v49: plain run failed"
    for shape in "" -g; do
        rm -rf "$d/rw"
        "$TOOL" $shape -m "$d/map.txt" "$d/classes" "$d/rw" >"$d/tool.txt" 2>&1 || fail "v49 $shape: rewrite failed"
        expect_eq "v49 $shape: methods instrumented" "$(wc -l <"$d/map.txt")" "$(sed -n 's/.*methods instrumented \([0-9]*\).*/\1/p' "$d/tool.txt")"
        for java in "$JAVA" ${JDK25:+"$JDK25/bin/java"}; do
            [ -x "$(command -v "$java")" ] || continue
            "$java" -Xverify:all -Demp.probe.out="$d/probe.txt" -cp "$d/rw:$CORPUS/stub" \
                ${shape:+-Demp.probe.guarded=true emp.Probe} corpus.Main >"$d/run.txt" 2>&1 ||
                fail "v49 $shape: instrumented run failed on $java: $(head -n 20 "$d/run.txt")"
            diff -u "$d/plain.txt" "$d/run.txt" >/dev/null || fail "v49 $shape: output differs on $java"
            check_probe "$d/probe.txt" "$d/map.txt" "v49 $shape on $java" - "$shape"
        done
    done
}

run_one jdk17 "$JAVA" 0
run_one jdk17-ldc "$JAVA" 100000
run_one jdk17-guarded "$JAVA" 0 -g
if have_jdk25; then
    run_one jdk25 "$JDK25/bin/java" 0
    run_one jdk25-ldc "$JDK25/bin/java" 100000
    run_one jdk25-guarded "$JDK25/bin/java" 0 -g
else
    echo "JDK 25 not found at $JDK25: only JDK 17 checked"
fi
old_classes
echo "rewriter corpus: ok"
