#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace-app-report.py - the report of bench/trace-app.sh from its result directory (python3 standard library).

Usage: trace-app-report.py DIR
Per variant: runs that exited 0, median whole-process wall time, the median of the per-round wall ratios to the
pure run of the same round with a bootstrap 95 % CI (2000 resamples, seed 1), calls recorded, bytes of output per
call, emp's ring_full_waits and analyzer time/peak memory (from each run's extra.txt), and whether the program's
stdout equals the pure run's.  For emp-bN (budget=N): methods de-instrumented and two coverages of the full trace's
traced time (the self time of every method in the emp run of the same round): "own", the share in methods the budget
run kept (those its calls.csv lists and does not mark "[de-instrumented]": a method it never instrumented, such as
one too small for budget=, or never called, is not kept); "inside", the share still inside a call the
budget run traces (the full trace's calling contexts, its tree.csv, with a kept method on the path: that time is
then in the nearest kept caller's self time).  Markdown on stdout.
"""
import csv, os, random, re, statistics, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "manifest.csv"))))
pure_out = None
by = {}
for r in rows:
    by.setdefault(r["variant"], []).append(r)
def extra(r):
    p = os.path.join(d, "runs", f"{r['workload']}-{r['variant']}-vm{r['vm']}", "extra.txt")
    x = {}
    if os.path.exists(p):
        for line in open(p):
            k, *v = line.split()
            x[k] = v
    return x
def stdout(r):
    return open(os.path.join(d, "runs", f"{r['workload']}-{r['variant']}-vm{r['vm']}", "stdout.txt")).read()
pure = {r["vm"]: r for r in by.get("pure", []) if r["exit"] == "0"}
full = {r["vm"]: r for r in by.get("emp", []) if r["exit"] == "0"}
MARK = " [de-instrumented]"
def calls_csv(r):
    p = os.path.join(d, "runs", f"{r['workload']}-{r['variant']}-vm{r['vm']}", "calls.csv")
    return list(csv.DictReader(open(p))) if os.path.exists(p) else None
def coverage(r):
    """Share of the full trace's self time in the methods budget run @r kept, or None."""
    if r["vm"] not in full:
        return None
    f, b = calls_csv(full[r["vm"]]), calls_csv(r)
    if not f or b is None:
        return None
    kept = {x["method"] for x in b if not x["method"].endswith(MARK)}
    total = sum(int(x["self_ns"]) for x in f)
    if not total:
        return None
    own = sum(int(x["self_ns"]) for x in f if x["method"] in kept) / total
    # inside: preorder rows with their depth; a context is covered when a method on its path was kept
    p = os.path.join(d, "runs", f"{full[r['vm']]['workload']}-emp-vm{r['vm']}", "tree.csv")
    if not os.path.exists(p):
        return own, None
    kept_at, inside, all_ns = [], 0, 0
    for x in csv.DictReader(open(p)):
        depth = int(x["depth"])
        del kept_at[depth - 1:]
        kept_at.append((kept_at[-1] if kept_at else False) or x["method"] in kept)
        all_ns += int(x["self_ns"])
        inside += int(x["self_ns"]) if kept_at[-1] else 0
    return own, inside / all_ns if all_ns else None
machine = open(os.path.join(d, "machine.txt")).read()
app = {"h2": "H2 under a JDBC load", "javac": "javac compiling commons-lang3"}.get(
    re.search(r"APP=(\S+)", machine).group(1) if "APP=" in machine else "h2", "?")
print("## trace-app: " + app + ", traced wholesale (" + machine.split("java: ")[1].split("\n")[0].strip() + ")")
print()
print("| variant | runs ok | wall s (median) | ratio to pure [95 % CI] | calls recorded | bytes/call | ring_full_waits | reader s / MB (emp `calls`, `jfr view`) | methods removed | coverage: own | coverage: inside | output = pure |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
rng = random.Random(1)
for v, rs in by.items():
    ok = [r for r in rs if r["exit"] == "0"]
    walls = [float(r["wall_s"]) for r in ok]
    ratios = [float(r["wall_s"]) / float(pure[r["vm"]]["wall_s"]) for r in ok if r["vm"] in pure]
    if ratios:
        med = statistics.median(ratios)
        boots = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
        ci = f"{med:.2f} [{boots[50]:.2f}, {boots[1949]:.2f}]"
    else:
        ci = "—"
    calls = [int(r["count"]) for r in ok if r["count"]]
    ex = [extra(r) for r in ok]
    bpc = [int(e["bytes"][0]) / c for e, c in zip(ex, calls) if "bytes" in e and c]
    rfw = [e["ring_full_waits"][0] for e in ex if "ring_full_waits" in e]
    an = [f"{float(e['analyzer'][0]):.1f} / {int(e['analyzer'][1]) / 1024:.0f}" for e in ex if "analyzer" in e]
    rem = [e["removed"][0] for e in ex if e.get("removed")]
    cov = [c for c in (coverage(r) for r in ok) if c is not None] if v.startswith("emp-b") else []
    same = "—" if v == "pure" else ("yes" if all(r["vm"] in pure and stdout(r) == stdout(pure[r["vm"]]) for r in ok) else "**no**")
    print(f"| {v} | {len(ok)}/{len(rs)} | {statistics.median(walls):.2f} | {ci} | "
          f"{f'{int(statistics.median(calls)):,}' if calls else '—'} | {f'{statistics.median(bpc):.2f}' if bpc else '—'} | "
          f"{', '.join(rfw) or '—'} | {', '.join(an) or '—'} | {', '.join(rem) if v.startswith('emp-b') else '—'} | "
          f"{', '.join(f'{100 * c[0]:.1f} %' for c in cov) or '—'} | "
          f"{', '.join(f'{100 * c[1]:.1f} %' for c in cov if c[1] is not None) or '—'} | {same} |")
print()
for line in open(os.path.join(d, "machine.txt")):
    print("    " + line.rstrip())
