#!/usr/bin/env bash
# trace_corpus.sh - the rewriter's Java corpus (tests/java-corpus, built by tests/rewriter.mk) run with the REAL
# agent (mode=trace,include=corpus.*: emp/Probe defined in the bootstrap loader, natives, rings, writer) under
# -Xverify:all on JDK 17 and 25:
#   - stdout and stderr identical to the uninstrumented run;
#   - no class or method left unchanged (the corpus has none the rewriter must skip), no loss counter set;
#   - every trace valid (eoi, ess, nesting in time), nothing left open;
#   - the exact counts of tests/java-corpus/expected-counts.txt: calls = exits + exitThrows, threw = exitThrows.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"
CORPUS=$TOP/$BUILD/java-corpus
if [ ! -f "$CORPUS/.built" ]; then
    make -C "$TOP" --no-print-directory BUILD="$BUILD" rewriter-corpus >/dev/null || fail "cannot build the corpus"
fi
EXPECTED=$TOP/tests/java-corpus/expected-counts.txt

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || { echo "no $jdk, skipping it"; continue; }
    "$jdk" -cp "$CORPUS/classes" corpus.Main >plain.txt 2>&1 || fail "$jdk: uninstrumented corpus run failed"
    "$jdk" -Xverify:all -agentpath:"$AGENT"=mode=trace,include=corpus.*,out=corpus.emp -cp "$CORPUS/classes" \
        corpus.Main >traced.txt 2>&1 || fail "$jdk: traced corpus run failed: $(head -n 20 traced.txt)"
    diff -u plain.txt traced.txt >diff.txt || fail "$jdk: output differs under the agent: $(head -n 30 diff.txt)"
    for c in lost_ring_full lost_after_shutdown lost_reentrant lost_no_thread_state trace_unbalanced_exit \
             write_errors classes_failed methods_skipped; do
        expect_eq "$jdk: counter $c" 0 "$(info_value corpus.emp counters "$c")"
    done
    "$ANALYZE" calls --check --format=csv corpus.emp >check.csv 2>check.err || fail "$jdk: calls --check: $(cat check.err check.csv)"
    expect_eq "$jdk: unclosed, exits without entry, eoi/ess/time violations" "0 0 0 0 0" \
        "$(awk -F, 'NR==2{print $5, $6, $7, $8, $9}' check.csv)"
    "$ANALYZE" calls --signatures --format=csv corpus.emp >calls.csv || fail "$jdk: calls failed"
    python3 - calls.csv "$EXPECTED" "$jdk" <<'PY' || exit 1
import csv, sys
got = {r["method"]: (int(r["calls"]), int(r["threw"])) for r in csv.DictReader(open(sys.argv[1]))}
bad, n = [], 0
for line in open(sys.argv[2]):
    line = line.strip()
    if not line or line.startswith("#"): continue
    m, e, x, t = line.split()
    n += 1
    want = (int(x) + int(t), int(t))
    if int(e) != int(x) + int(t): bad.append(f"{m}: expected counts are unbalanced")
    if got.get(m, (0, 0)) != want:
        bad.append(f"{m}: expected calls/threw {want[0]}/{want[1]}, got {got.get(m, (0, 0))}")
if bad:
    print(f"FAIL ({sys.argv[3]}):"); [print("  " + b) for b in bad[:30]]; sys.exit(1)
print(f"{sys.argv[3]}: {len(got)} methods traced, {sum(c for c, _ in got.values())} calls, {n} exact counts ok")
PY
done
echo "trace corpus: ok"
