#!/usr/bin/env bash
# overhead.sh - emp-analyze overhead on synthetic timing files with a known overhead: pure iterations ~ N(1000, 10)
# ns and measured ~ N(1050, 10) ns (plus a per-VM offset ~ N(0, 3) on both, so Kalibera-Jones sees a between-VM
# component), 10 VMs x 120 iterations, the first 20 being a slow warm-up (3000 ns) that --warmup 20 must drop.
# Fixed seed: the files are the same on every run.  Checks: the relative overhead's interval contains 5 % and its
# point is within 0.5 % of it; the absolute and per-call figures; the row set; text and json; error paths (missing
# directory, empty directory, malformed line, bad header, bad options) with one-line messages and exit statuses.
# The same files as pure-mode sets of compare and exactness: the node is the iteration, base/new means are the
# means of the VM means after --warmup 20 (recomputed here from the files), the p-value is the one of completely
# separated samples, and the F1 grid's true positives are decided by that separation.
source "$(dirname "$0")/../lib/common.sh"
[ -x "$ANALYZE" ] || fail "no $ANALYZE (make)"

python3 - "$TMP" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(5)
for variant, mu in (("pure", 1000.0), ("trace", 1050.0), ("sample", 1010.0)):
    d = os.path.join(root, variant)
    os.makedirs(d)
    for vm in range(10):
        off = rng.gauss(0, 3)
        with open(os.path.join(d, f"run-{vm:02d}.csv"), "w") as f:
            f.write("iteration,duration_ns\n")
            for i in range(120):
                ns = 3000 if i < 20 else rng.gauss(mu + off, 10)
                f.write(f"{i},{int(round(ns))}\n")
    open(os.path.join(d, "ignored.emp"), "w").write("not a timing file\n")
PY

out=$("$ANALYZE" overhead --pure "$TMP/pure" --measured "$TMP/trace" "$TMP/sample/" --warmup 20 \
    --calls-per-iteration 10 --format=csv) || fail "overhead failed: $out"
echo "$out"
python3 - "$out" <<'PY' || exit 1
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
if [r["variant"] for r in rows] != ["pure", "trace", "sample"]:
    fail(f"rows {[r['variant'] for r in rows]}")
for r in rows:
    if r["vms"] != "10" or float(r["iterations"]) != 100:
        fail(f"{r['variant']}: vms {r['vms']} iterations {r['iterations']} (expected 10 and 100 after --warmup 20)")
p, t, s = rows
if p["ratio"] != "" or p["overhead_ns"] != "":
    fail("pure row has an overhead")
ratio, lo, hi = float(t["ratio"]), float(t["ratio_lo"]), float(t["ratio_hi"])
if not lo <= 1.05 <= hi:
    fail(f"trace: ratio interval [{lo}, {hi}] does not contain 1.05")
if abs(ratio - 1.05) > 0.005:
    fail(f"trace: ratio {ratio} not within 0.5 % of 1.05")
ov = float(t["overhead_ns"])
if not (float(t["overhead_ns_lo"]) <= 50 <= float(t["overhead_ns_hi"])) or abs(ov - 50) > 5:
    fail(f"trace: overhead {ov} ns [{t['overhead_ns_lo']}, {t['overhead_ns_hi']}], expected about 50")
if abs(float(t["per_call_ns"]) - ov / 10) > 1e-9 * abs(ov):
    fail(f"per call {t['per_call_ns']} is not overhead/10")
if not float(s["ratio_lo"]) <= 1.01 <= float(s["ratio_hi"]):
    fail(f"sample: interval [{s['ratio_lo']}, {s['ratio_hi']}] does not contain 1.01")
if not 9 < float(p["within_sd_ns"]) < 11:
    fail(f"within-VM sd {p['within_sd_ns']}, expected about 10")
if not 0 < float(p["between_sd_ns"]) < 8:
    fail(f"between-VM sd {p['between_sd_ns']}, expected about 3")
print("csv ok")
PY

# deterministic: the same seed gives the same bytes; json parses; text has the note and the three rows
again=$("$ANALYZE" overhead --pure "$TMP/pure" --measured "$TMP/trace" "$TMP/sample/" --warmup 20 \
    --calls-per-iteration 10 --format=csv)
expect_eq "same output twice" "$out" "$again"
"$ANALYZE" overhead --pure "$TMP/pure" --measured "$TMP/trace" --format=json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["tables"]["overhead"]
assert [r["variant"] for r in rows] == ["pure", "trace"], rows
assert "per_call_ns" not in rows[0] and rows[0]["ratio"] is None, rows[0]' || fail "json output"
# variants whose directories end alike are named by as many components as tell them apart (emp-run's
# pure/base and s1/base)
mkdir -p "$TMP/x/a" "$TMP/y/a" "$TMP/y/b"
cp "$TMP"/pure/*.csv "$TMP/x/a/"; cp "$TMP"/trace/*.csv "$TMP/y/a/"; cp "$TMP"/sample/*.csv "$TMP/y/b/"
expect_eq "names told apart" "x/a y/a y/b" "$("$ANALYZE" overhead --pure "$TMP/x/a" --measured "$TMP/y/a/" \
    "$TMP/y/b" --format=csv | awk -F, 'NR > 1 { printf "%s%s", sep, $1; sep = " " }')"
text=$("$ANALYZE" overhead --pure "$TMP/pure" --measured "$TMP/trace" --warmup 20)
expect_match "text note" "warm-up 20 iterations dropped" "$text"
expect_eq "text rows" 1 "$(grep -c '^trace ' <<<"$text")"

# compare and exactness read the same timing files as pure-mode sets (one node: the iteration).  The fixture
# directories also hold an .emp file, which those commands refuse (analyzer_errors.sh), so the sets are links.
for v in pure trace; do
    mkdir -p "$TMP/sets/$v"
    ln -s "$TMP/$v"/run-*.csv "$TMP/sets/$v/"
done
cmp_out=$("$ANALYZE" compare --base "$TMP/sets/pure" --new "$TMP/sets/trace" --warmup 20 --format=csv) ||
    fail "compare on timing files failed: $cmp_out"
bb_out=$("$ANALYZE" compare --base "$TMP/sets/pure" --new "$TMP/sets/pure" --warmup 20 --format=csv \
    --iteration-name=emp.sut.CallTree.runIteration) || fail "compare pure vs pure failed: $bb_out"
"$ANALYZE" exactness --base "$TMP/sets/pure" --new "$TMP/sets/trace" --warmup 20 --iterations 1,100 \
    --csv "$TMP/grid.csv" --format=csv >"$TMP/required.csv" || fail "exactness on timing files failed"
python3 - "$TMP" "$cmp_out" "$bb_out" <<'PY' || exit 1
import csv, glob, io, math, os, sys
tmp, cmp_out, bb_out = sys.argv[1:4]
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
def vm_means(v):  # per VM: the mean of the rows after the 20 warm-up rows, in file-name order
    out = []
    for f in sorted(glob.glob(os.path.join(tmp, "sets", v, "*.csv"))):
        rows = [int(r["duration_ns"]) for r in csv.DictReader(open(f))][20:]
        if len(rows) != 100: fail(f"{f}: {len(rows)} rows after the warm-up")
        out.append(sum(rows) / len(rows))
    return out
pure, trace = vm_means("pure"), vm_means("trace")
if max(pure) >= min(trace):
    fail("the fixture's pure and trace VM means overlap; the exact checks below assume they do not")
rows = list(csv.DictReader(io.StringIO(cmp_out)))
if len(rows) != 1: fail(f"compare: {len(rows)} rows, expected one (the iteration)")
r = rows[0]
if r["node"] != "iteration" or r["method"] != "iteration" or r["depth"] != "1":
    fail(f"compare: node {r['node']!r} method {r['method']!r} depth {r['depth']}")
bm, nm = sum(pure) / 10, sum(trace) / 10
for col, want in (("base_mean", bm), ("new_mean", nm), ("ratio", nm / bm)):
    if abs(float(r[col]) - want) > 1e-6 * want + 5e-7:
        fail(f"compare: {col} {r[col]}, expected {want:.6f} (mean of the VM means)")
# 10 against 10 VMs, completely separated, no ties: U = 100, and with more than 8 per side scipy's method='auto'
# takes the normal approximation with continuity correction: z = (50 - 0.5) / sqrt(10 * 10 * 21 / 12)
p = math.erfc((50 - 0.5) / math.sqrt(10 * 10 * 21 / 12) / math.sqrt(2))
if abs(float(r["p_value"]) - p) > 1e-9:
    fail(f"compare: p {r['p_value']}, expected {p:.9f}")
if (r["verdict"], r["root_cause"], r["base_vms"], r["new_vms"]) != ("slower", "1", "10", "10"):
    fail(f"compare: verdict {r['verdict']} root_cause {r['root_cause']} vms {r['base_vms']}/{r['new_vms']}")
rows = list(csv.DictReader(io.StringIO(bb_out)))
if len(rows) != 1 or rows[0]["node"] != "emp.sut.CallTree.runIteration" or rows[0]["verdict"] != "unchanged" \
        or float(rows[0]["p_value"]) != 1:
    fail(f"compare pure vs pure: {rows}")
# exactness: at 100 iterations the VM means are separated, so no base-vs-new draw of k <= 4 VMs can reach
# p < 0.01 and every draw of k >= 6 does (whatever the ties of resampling); base-vs-base draws are 1000 per cell
grid = list(csv.DictReader(open(os.path.join(tmp, "grid.csv"))))
if len(grid) != 2 * 9 or {g["node"] for g in grid} != {"iteration"}:
    fail(f"exactness grid: {len(grid)} rows, nodes {({g['node'] for g in grid})}")
for g in grid:
    k, i, tp, fn, tn, fp = (int(g[c]) for c in ("vms", "iterations", "tp", "fn", "tn", "fp"))
    if tp + fn != 1000 or tn + fp != 1000: fail(f"exactness k {k} i {i}: counts {g}")
    if i == 100 and ((k <= 4 and tp != 0) or (k >= 6 and tp != 1000)):
        fail(f"exactness k {k} at 100 iterations: tp {tp}")
req = {int(r["iterations"]): r["required_vms"] for r in csv.DictReader(open(os.path.join(tmp, "required.csv")))}
first = min(int(g["vms"]) for g in grid if g["iterations"] == "100" and float(g["f1"]) > 0.98)
if req.get(100) != str(first) or first > 6:
    fail(f"exactness: required_vms {req.get(100)} at 100 iterations, the grid says {first} (expected <= 6)")
print("compare/exactness on timing files ok")
PY

# run ARGS...: sets RC and ERR (stderr), stdout must be empty on error
run() { "$ANALYZE" "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; ERR=$(cat "$TMP/err"); }
expect_err() { # WHAT RC EXACT-STDERR
    [ "$RC" == "$2" ] || fail "$1: exit $RC, expected $2 ($ERR)"
    expect_eq "$1: stderr" "$3" "$ERR"
    [ ! -s "$TMP/out" ] || fail "$1: stdout not empty"
}
run overhead --pure "$TMP/nope" --measured "$TMP/trace"
expect_err "missing dir" 1 "emp-analyze: $TMP/nope: No such file or directory"
mkdir "$TMP/empty"
run overhead --pure "$TMP/pure" --measured "$TMP/empty"
expect_err "empty dir" 1 "emp-analyze: $TMP/empty: no timing files (*.csv, java-sut --timings) and not a directory of emp-run"
mkdir "$TMP/bad" && cp "$TMP/trace/run-00.csv" "$TMP/bad/a.csv" && sed -i '7s/.*/6,12x4/' "$TMP/bad/a.csv"
run overhead --pure "$TMP/pure" --measured "$TMP/bad"
expect_err "malformed line" 1 "emp-analyze: $TMP/bad/a.csv:7: expected 'iteration,duration_ns' (two integers), got '6,12x4'"
sed -i '7s/.*/9,1000/' "$TMP/bad/a.csv"
run overhead --pure "$TMP/pure" --measured "$TMP/bad"
expect_err "out of order" 1 "emp-analyze: $TMP/bad/a.csv:7: iteration 9 out of order (expected 5)"
printf 'iter,ns\n0,5\n' >"$TMP/bad/a.csv"
run overhead --pure "$TMP/pure" --measured "$TMP/bad"
expect_err "bad header" 1 "emp-analyze: $TMP/bad/a.csv:1: expected the header 'iteration,duration_ns' (a java-sut --timings file)"
printf 'iteration,duration_ns\n0,5\n' >"$TMP/bad/a.csv"
run overhead --pure "$TMP/pure" --measured "$TMP/bad" --warmup 1
expect_err "all warm-up" 1 "emp-analyze: $TMP/bad/a.csv: no iterations after --warmup 1 (the file has 1)"
run overhead --measured "$TMP/trace"
expect_err "no --pure" 2 "emp-analyze overhead: --pure DIR is required (see emp-analyze overhead --help)"
run overhead --pure "$TMP/pure"
expect_err "no --measured" 2 "emp-analyze overhead: --measured DIR is required (see emp-analyze overhead --help)"
run overhead --pure "$TMP/pure" --measured "$TMP/trace" --level 1.5
expect_err "bad level" 2 "emp-analyze overhead: --level=1.5: expected a number between 0 and 1 (see emp-analyze overhead --help)"
run overhead --pure "$TMP/pure" --measured "$TMP/trace" --calls-per-iteration 0
expect_err "bad calls" 2 "emp-analyze overhead: --calls-per-iteration=0: expected a number > 0 (see emp-analyze overhead --help)"
echo "ok"
