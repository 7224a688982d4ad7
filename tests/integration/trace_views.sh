#!/usr/bin/env bash
# trace_views.sh - the profile views on real trace dumps (issue 11 item 4): ForkJoinFib (recursion on two pool
# workers and the main thread) traced on JDK 17 and 25.  Exact, from one dump: `collapsed` has one line per calling
# context with self time, its weight equal to that context's self_ns in `tree`; a method's lines add up to its
# self_ns in `calls` and in `top` (each call's time is rounded to the ns once, the same way for every view); all
# lines add up to the traced time (the depth-1 nodes' total_ns) within 1 ns per call (a call's self and total time
# are rounded separately); `tree --min-pct=1` keeps exactly the nodes with at least 1 % of it; `flame` labels
# frames in ns.
# Exit 0 pass, 77 skip (no JDK), 1 fail.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$(command -v "$JAVA" 2>/dev/null)" ] || skip "no java"
ran=0
for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || { echo "no $jdk, skipping it"; continue; }
    "$jdk" -agentpath:"$AGENT"=mode=trace,include=emp.sut.ForkJoinFib*,out=fj.emp -cp "$SUT" emp.sut.ForkJoinFib \
        --n 18 --mode fork --parallelism 2 --repeat 2 >/dev/null 2>err.txt || fail "$jdk: run failed: $(cat err.txt)"
    "$ANALYZE" collapsed --signatures fj.emp >fj.folded 2>/dev/null || fail "$jdk: collapsed failed"
    "$ANALYZE" calls --signatures --format=csv fj.emp >calls.csv || fail "$jdk: calls failed"
    "$ANALYZE" top --signatures --format=csv fj.emp >top.csv 2>/dev/null || fail "$jdk: top failed"
    "$ANALYZE" tree --signatures --format=csv --min-pct=0 fj.emp >tree.csv 2>/dev/null || fail "$jdk: tree failed"
    "$ANALYZE" tree --signatures --format=csv --min-pct=1 fj.emp >tree1.csv 2>/dev/null || fail "$jdk: tree failed"
    "$ANALYZE" flame -o fj.svg fj.emp 2>/dev/null || fail "$jdk: flame failed"
    python3 - <<'PY' || fail "$jdk: the views disagree (above)"
import csv, collections, sys
bad = []
def check(what, want, got):
    if want != got:
        bad.append(f"{what}: expected {want}, got {got}")
folded = {}
for line in open("fj.folded"):
    path, w = line.rstrip("\n").rsplit(" ", 1)
    folded[path] = int(w)
tree = list(csv.DictReader(open("tree.csv")))
calls = {r["method"].replace(";", ":"): r for r in csv.DictReader(open("calls.csv"))}
top = {r["method"].replace(";", ":"): r for r in csv.DictReader(open("top.csv"))}
check("folded lines = tree nodes with self time", {r["path"]: int(r["self_ns"]) for r in tree if int(r["self_ns"])},
      folded)
by_method = collections.Counter()
for path, w in folded.items():
    by_method[path.split(";")[-1]] += w
check("folded weight per method = calls self_ns",
      {m: int(r["self_ns"]) for m, r in calls.items() if int(r["self_ns"])}, dict(by_method))
check("top self_ns = calls self_ns", {m: int(r["self_ns"]) for m, r in calls.items()},
      {m: int(r["self_ns"]) for m, r in top.items()})
traced = sum(int(r["total_ns"]) for r in tree if r["depth"] == "1")
ncalls = sum(int(r["calls"]) for r in calls.values())
check("calls in the tree = calls", ncalls, sum(int(r["calls"]) for r in tree))
if abs(sum(folded.values()) - traced) > ncalls:
    bad.append(f"folded total {sum(folded.values())} ns is not the traced time {traced} ns within {ncalls} ns")
for m, r in top.items():
    check(f"top total_pct of {m}", round(100.0 * int(r["total_ns"]) / traced, 9), round(float(r["total_pct"]), 9))
    if int(r["total_ns"]) > int(calls[m]["total_ns"]):
        bad.append(f"top total_ns of {m} above its calls' total (each level of a recursion)")
tree1 = [r["path"] for r in csv.DictReader(open("tree1.csv"))]
check("tree --min-pct=1", [r["path"] for r in tree if int(r["total_ns"]) >= 0.01 * traced], tree1)
if len(folded) < 5 or len(tree1) < 2 or len(tree1) == len(tree):
    bad.append(f"too small a test: {len(folded)} folded lines, {len(tree1)} of {len(tree)} nodes above 1 %")
svg = open("fj.svg").read()
if " ns, " not in svg or " samples, " in svg:
    bad.append("flame: frames not labelled in ns")
for b in bad:
    print(b)
print(f"trace views: {len(folded)} contexts, {len(calls)} methods, {traced} ns traced, {len(tree1)} nodes >= 1 %")
sys.exit(1 if bad else 0)
PY
    ran=1
done
[ $ran = 1 ] || skip "no JDK ran"
