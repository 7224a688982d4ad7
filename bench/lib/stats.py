#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stats.py - statistics of a bench/ run (python3 standard library only).

Reads the manifest.csv that bench/lib/runner.sh writes (one row per JVM run, with n/mean/variance of the
per-iteration timings that java-sut's --timings CSV held, after the warm-up cut) and prints Markdown tables.

  stats.py overhead MANIFEST [--baseline pure] [--noise pure-b]
      per workload and variant: VMs kept, median of per-VM means, ratio to the baseline with a bootstrap 95 %
      CI over VM means, the Kalibera-Jones split (within-VM and between-VM standard deviation) with the
      suggested number of iterations per VM, and the mean count (e.g. samples) per run.
  stats.py slope MANIFEST [--baseline pure] [--calls N]
      MooBench depth scaling: per variant, the least-squares slope of time per top-level call over depth
      (ns per instrumented call) with a bootstrap 95 % CI (VMs resampled within each depth), the slope minus
      the baseline's (the agent's own cost per call) with its CI, and records written per call made.

Runs that failed are left out and counted; runs flagged "busy" (CPU/wall below the threshold) are kept but
counted, unless --drop-busy.  Bootstrap: 2000 resamples, fixed seed (--seed), percentile intervals.
"""
import argparse
import csv
import math
import os
import random
import statistics
import sys


def load(path, drop_busy):
    runs, failed, busy = [], {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["workload"], r["variant"])
            if r["flag"] == "busy":
                busy[key] = busy.get(key, 0) + 1
            bad = r["exit"] != "0" or not r["mean_ns"] or r["flag"] == "failed"
            if bad or (drop_busy and r["flag"] == "busy"):
                failed[key] = failed.get(key, 0) + bad
                continue
            r["n"] = int(r["n"])
            r["mean_ns"] = float(r["mean_ns"])
            r["var_ns2"] = float(r["var_ns2"])
            r["wall_s"] = float(r["wall_s"])
            r["count"] = float(r["count"]) if r["count"] not in ("", None) else None
            runs.append(r)
    return runs, failed, busy


def ordered(seq):
    seen = []
    for x in seq:
        if x not in seen:
            seen.append(x)
    return seen


def boot_ci(rng, fn, samples, b):
    """Percentile 95 % interval of fn over b resamples; samples is a list of lists, each resampled alone."""
    vals = []
    for _ in range(b):
        vals.append(fn([[rng.choice(s) for _ in s] for s in samples]))
    vals.sort()
    return vals[int(0.025 * (b - 1))], vals[int(0.975 * (b - 1))]


def kalibera_jones(rs):
    """Within- and between-VM variance (two-level random effects, method of moments) and the suggested
    iterations per VM r = ceil(sqrt(c_vm / c_iter * S_within^2 / S_between^2)) (Kalibera & Jones 2013)."""
    n = statistics.mean(r["n"] for r in rs)
    within = statistics.mean(r["var_ns2"] for r in rs)
    means = [r["mean_ns"] for r in rs]
    between = max(0.0, statistics.variance(means) - within / n) if len(means) > 1 else float("nan")
    c_iter = statistics.mean(means) * 1e-9
    # cost of one VM beyond its measured iterations: start-up, warm-up, shut-down
    c_vm = max(0.05, statistics.median(r["wall_s"] for r in rs) - n * c_iter)
    if between and between > 0:
        r_opt = math.ceil(math.sqrt(c_vm / c_iter * within / between))
    else:
        r_opt = None
    return math.sqrt(within), math.sqrt(between) if between == between else between, r_opt


def fmt(x, d=1):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{d}f}"


def cmd_overhead(a):
    runs, failed, busy = load(a.manifest, a.drop_busy)
    rng = random.Random(a.seed)
    out_rows = []
    print(f"| workload | variant | VMs | busy | median of VM means | ratio to {a.baseline} [95 % CI] | "
          "within-VM sd | between-VM sd | iters/VM (KJ) | count/run |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for w in ordered([r["workload"] for r in runs] + [ww for (ww, v) in failed]):
        base = [r["mean_ns"] for r in runs if r["workload"] == w and r["variant"] == a.baseline]
        for v in ordered([r["variant"] for r in runs if r["workload"] == w] + [v for (ww, v) in failed if ww == w]):
            rs = [r for r in runs if r["workload"] == w and r["variant"] == v]
            if not rs:  # every run failed: the row says so rather than leaving the variant out
                if failed.get((w, v)):
                    print(f"| {w} | {v} | 0 (+{failed[(w, v)]} failed) | – | – | – | – | – | – | – |")
                continue
            means = [r["mean_ns"] for r in rs]
            med = statistics.median(means)
            ratio = lo = hi = None
            if base:
                ratio = med / statistics.median(base)
                if len(means) > 1 and len(base) > 1:
                    lo, hi = boot_ci(rng, lambda s: statistics.median(s[0]) / statistics.median(s[1]),
                                     [means, base], a.bootstrap)
            sw, sb, r_opt = kalibera_jones(rs)
            counts = [r["count"] for r in rs if r["count"] is not None]
            cname = next((r["count_name"] for r in rs if r["count_name"]), "")
            cnt = f"{statistics.mean(counts):.0f} {cname}" if counts else "–"
            nfail = failed.get((w, v), 0)
            vms = f"{len(rs)}" + (f" (+{nfail} failed)" if nfail else "")
            unit, scale = ("µs", 1e3) if med >= 1e4 else ("ns", 1)
            ci = f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""
            print(f"| {w} | {v} | {vms} | {busy.get((w, v), 0)} | {med / scale:.{3 if unit == 'ns' else 1}f} {unit} | "
                  f"{fmt(ratio, 3)}{ci} | {fmt(sw / scale, 2)} {unit} | {fmt(sb / scale, 2)} {unit} | "
                  f"{r_opt if r_opt is not None else '–'} | {cnt} |")
            out_rows.append([w, v, len(rs), nfail, busy.get((w, v), 0), med, ratio, lo, hi, sw, sb, r_opt,
                             statistics.mean(counts) if counts else None, cname])
    write_csv(a, "overhead.csv", ["workload", "variant", "vms", "failed", "busy", "median_ns", "ratio",
                                  "ci_lo", "ci_hi", "within_sd_ns", "between_sd_ns", "kj_iters", "count",
                                  "count_name"], out_rows)


def slope(points):
    """Least-squares slope of y over x; points = [(x, y)]."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def cmd_slope(a):
    runs, failed, busy = load(a.manifest, a.drop_busy)
    rng = random.Random(a.seed)
    variants = ordered([r["variant"] for r in runs] + [v for (w, v) in failed])

    def by_depth(v):
        d = {}
        for r in runs:
            if r["variant"] == v:
                d.setdefault(int(r["param"]), []).append(r["mean_ns"])
        return dict(sorted(d.items()))

    def slope_of(groups, depths):
        return slope([(x, statistics.median(g)) for x, g in zip(depths, groups)])

    base = by_depth(a.baseline)
    base_depths = list(base)
    base_groups = [base[x] for x in base_depths]
    base_slope = slope_of(base_groups, base_depths) if len(base_depths) > 1 else None
    print(f"| variant | depths | VMs/depth | busy | slope ns/call [95 % CI] | minus {a.baseline} [95 % CI] | "
          "calls recorded / calls made (min … max over runs) | records written |")
    print("|---|---|---|---|---|---|---|---|")
    out_rows = []
    for v in variants:
        g = by_depth(v)
        depths = list(g)
        groups = [g[x] for x in depths]
        if len(depths) < 2:
            nfail = sum(n for (w, vv), n in failed.items() if vv == v)
            if nfail:  # a variant whose runs all failed still gets its row: it is not cheaper, it did not run
                print(f"| {v} | – | 0 (+{nfail} failed) | – | – | – | – | – |")
            continue
        s = slope_of(groups, depths)
        lo, hi = boot_ci(rng, lambda ss: slope_of(ss, depths), groups, a.bootstrap)
        d_s = d_lo = d_hi = None
        if base_slope is not None and v != a.baseline:
            d_s = s - base_slope
            k = len(groups)
            d_lo, d_hi = boot_ci(rng, lambda ss: slope_of(ss[:k], depths) - slope_of(ss[k:], base_depths),
                                 groups + base_groups, a.bootstrap)
        rs = [r for r in runs if r["variant"] == v]
        kept = [r["count"] / (a.calls * int(r["param"])) for r in rs if r["count"] is not None]
        cname = next((r["count_name"] for r in rs if r["count_name"]), "")
        vms = statistics.median(len(x) for x in groups)
        nfail = sum(n for (w, vv), n in failed.items() if vv == v)
        nbusy = sum(n for (w, vv), n in busy.items() if vv == v)
        rec = f"{min(kept):.4f} … {max(kept):.4f}" if kept else "–"
        print(f"| {v} | {','.join(map(str, depths))} | {vms:g}" + (f" (+{nfail} failed)" if nfail else "") +
              f" | {nbusy} | {s:.1f} [{lo:.1f}, {hi:.1f}] | " +
              (f"{d_s:.1f} [{d_lo:.1f}, {d_hi:.1f}]" if d_s is not None else "–") +
              f" | {rec} | {cname or 'none'} |")
        out_rows.append([v, len(depths), vms, nfail, nbusy, s, lo, hi, d_s, d_lo, d_hi,
                         min(kept) if kept else None, max(kept) if kept else None, cname])
    write_csv(a, "slope.csv", ["variant", "depths", "vms_per_depth", "failed", "busy", "slope_ns", "ci_lo",
                               "ci_hi", "minus_base_ns", "minus_ci_lo", "minus_ci_hi", "recorded_min",
                               "recorded_max", "count_name"], out_rows)
    print()
    print("Time per top-level call (median of VM means, ns) by depth:")
    print()
    depths_all = sorted({int(r["param"]) for r in runs})
    print("| variant | " + " | ".join(f"d={d}" for d in depths_all) + " |")
    print("|---|" + "---|" * len(depths_all))
    for v in variants:
        g = by_depth(v)
        print(f"| {v} | " + " | ".join(fmt(statistics.median(g[d]), 0) if d in g else "–" for d in depths_all) + " |")


def write_csv(a, name, header, rows):
    path = os.path.join(os.path.dirname(os.path.abspath(a.manifest)), name)
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(header)
        for r in rows:
            wr.writerow(["" if x is None else (f"{x:.6g}" if isinstance(x, float) else x) for x in r])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("overhead", "slope"):
        s = sub.add_parser(name)
        s.add_argument("manifest")
        s.add_argument("--baseline", default="pure")
        s.add_argument("--bootstrap", type=int, default=2000)
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--drop-busy", action="store_true")
        if name == "slope":
            s.add_argument("--calls", type=int, required=True, help="top-level calls per run (MooBench --calls)")
    a = p.parse_args()
    if not os.path.isfile(a.manifest):
        print(f"stats.py: {a.manifest}: no such file", file=sys.stderr)
        return 2
    try:
        (cmd_overhead if a.cmd == "overhead" else cmd_slope)(a)
    except (KeyError, ValueError, statistics.StatisticsError) as e:
        print(f"stats.py: {a.manifest}: bad manifest ({e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
