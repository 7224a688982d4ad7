#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# real-programs-report.py RESULT_DIR - the table of bench/real-programs.sh from its manifest.csv and the runs'
# stdout.txt (the program's truth lines) and share.txt (each tool's share of the method, from its count function).
import csv, os, re, statistics, sys
d = sys.argv[1]
rows = [r for r in csv.DictReader(open(os.path.join(d, "manifest.csv"))) if r["exit"] == "0"]
def run_dir(r):
    return os.path.join(d, "runs", f"{r['workload']}-{r['variant']}-vm{r['vm']}")
def truth(r, key):
    for line in open(os.path.join(run_dir(r), "stdout.txt")):
        f = line.split()
        if len(f) == 3 and f[0] == key:
            return float(f[2])
    return None
def med(xs):
    return statistics.median(xs) if xs else float("nan")
def rng(xs, fmt):
    return f"{fmt.format(med(xs))} [{fmt.format(min(xs))}–{fmt.format(max(xs))}]" if xs else "–"
print("| shape | variant | runs | busy | share of method % | truth user % (user+sys %) | samples/CPU s | asked/s | wall s | wall / pure | CPU / pure |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for w in dict.fromkeys(r["workload"] for r in rows):
    wr = [r for r in rows if r["workload"] == w]
    pure = [r for r in wr if r["variant"] == "pure"]
    tu = [t for t in (truth(r, "share_user") for r in pure) if t is not None]
    tc = [t for t in (truth(r, "share") for r in pure) if t is not None]
    pure_wall = med([float(r["wall_s"]) for r in pure])
    pure_cpu = med([float(r["user_s"]) + float(r["sys_s"]) for r in pure])
    for v in dict.fromkeys(r["variant"] for r in wr):
        vr = [r for r in wr if r["variant"] == v]
        shares, rates = [], []
        for r in vr:
            p = os.path.join(run_dir(r), "share.txt")
            if os.path.exists(p) and open(p).read().strip():
                shares.append(100 * float(open(p).read()))
            cpu = float(r["user_s"]) + float(r["sys_s"])
            if r["count"] and cpu > 0:
                rates.append(int(r["count"]) / cpu)
        walls = [float(r["wall_s"]) for r in vr]
        cpus = [float(r["user_s"]) + float(r["sys_s"]) for r in vr]
        m = re.search(r"-(\d+)ms$", v)
        asked = f"{1000 / int(m.group(1)):.0f}" if m else "–"
        busy = sum(r["flag"] == "busy" for r in vr)
        tr = f"{100 * med(tu):.1f} ({100 * med(tc):.1f})" if v == "pure" and tu else ""
        print(f"| {w} | {v} | {len(vr)} | {busy} | {rng(shares, '{:.1f}')} | {tr} | {rng(rates, '{:.0f}')} | {asked} | "
              f"{rng(walls, '{:.2f}')} | {med(walls) / pure_wall:.2f} | {med(cpus) / pure_cpu:.2f} |")
