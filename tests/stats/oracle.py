#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""oracle.py - reference values for analyzer/lib/stats.c from scipy (Debian's python3-scipy, 1.10).

Usage: /usr/bin/python3 tests/stats/oracle.py [--seed N] > cases.csv

One case per line: test,x,y,statistic,p   (x and y are space-separated values written with repr(), so they read
back bit-identical; statistic and p with 17 significant digits; "nan" where scipy gives nan).
  mwu          scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='auto') - statistic U1
  mwu-commons  commons-math3 MannWhitneyUTest (no tie, no continuity correction) - statistic U1; p from
               scipy.stats.norm with the commons formula (there is no commons oracle here)
  welch        scipy.stats.ttest_ind(x, y, equal_var=False) - statistic t

The cases: exact small-n without ties (every n1, n2 in 1..8, and 8 vs 9..30 where only one side is small), ties
(small and large n, so the asymptotic branch with tie correction), large n, identical samples, one-element
samples, all values equal, and Welch on normal samples of several sizes, variances and shifts.
"""
import argparse
import sys
import warnings

import numpy as np
from scipy import stats


def fmt_list(v):
    return " ".join(repr(float(a)) for a in v)


def fmt_num(v):
    v = float(v)
    return "nan" if v != v else "%.17g" % v


def commons(x, y):
    n1, n2 = len(x), len(y)
    ranks = stats.rankdata(np.concatenate([x, y]))
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2.0
    umin = min(u1, n1 * n2 - u1)
    z = (umin - n1 * n2 / 2.0) / np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12.0)
    return u1, 2 * stats.norm.cdf(z)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20260501)
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # scipy's precision-loss warning for the constant samples, on purpose
    rng = np.random.default_rng(a.seed)
    out = sys.stdout
    out.write("test,x,y,statistic,p\n")

    def emit(x, y, tests=("mwu", "mwu-commons", "welch")):
        x, y = np.asarray(x, float), np.asarray(y, float)
        for t in tests:
            if t == "mwu":
                r = stats.mannwhitneyu(x, y, alternative="two-sided", method="auto")
                s, p = r.statistic, r.pvalue
            elif t == "mwu-commons":
                s, p = commons(x, y)
            else:
                if len(x) < 2 or len(y) < 2:
                    continue
                with np.errstate(all="ignore"):
                    r = stats.ttest_ind(x, y, equal_var=False)
                s, p = r.statistic, r.pvalue
            out.write(f"{t},{fmt_list(x)},{fmt_list(y)},{fmt_num(s)},{fmt_num(p)}\n")

    # exact branch: no ties, every size pair up to 8, several shifts (p from ~1e-4 to 1)
    for n1 in range(1, 9):
        for n2 in range(1, 9):
            for shift in (0.0, 0.5, 1.5, 4.0):
                emit(rng.normal(shift, 1, n1), rng.normal(0, 1, n2))
    # exact branch with one large side (scipy: exact unless both sizes exceed 8)
    for n2 in (9, 12, 20, 30, 60):
        for shift in (0.0, 1.0, 3.0):
            emit(rng.normal(shift, 1, 8), rng.normal(0, 1, n2))
            emit(rng.normal(0, 1, n2), rng.normal(shift, 1, 3))
    # extreme separations: the smallest exact p-values, 2 / C(n1+n2, n1)
    for n1, n2 in ((1, 1), (1, 8), (3, 3), (5, 7), (8, 8), (8, 30)):
        emit(np.arange(n1) + 100.0, np.arange(n2) * 0.5)
    # ties, small n (asymptotic with tie correction even though n <= 8)
    for n1, n2 in ((2, 3), (4, 4), (5, 8), (8, 8), (3, 7)):
        for k in (2, 3, 5):
            emit(rng.integers(0, k, n1), rng.integers(0, k, n2))
    # ties, larger n
    for n in (9, 10, 20, 50, 200):
        for k in (3, 10, 40):
            emit(rng.integers(0, k, n), rng.integers(0, k, n + 3))
            emit(rng.integers(0, k, n), rng.integers(1, k + 1, n))
    # large n without ties, several effect sizes (p down to ~1e-30)
    for n1, n2 in ((9, 9), (10, 15), (30, 30), (100, 80), (500, 500), (1000, 700)):
        for shift in (0.0, 0.1, 0.4, 1.0):
            emit(rng.normal(shift, 1, n1), rng.normal(0, 1, n2))
    # identical samples, all values equal, one-element samples
    for n in (1, 2, 5, 8, 9, 30):
        v = rng.normal(0, 1, n)
        emit(v, v.copy())
        emit(np.full(n, 3.0), np.full(n + 1, 3.0))
    emit([1.0], [2.0])
    emit([2.0], [1.0])
    emit([1.0], [1.0])
    emit([5.0], rng.normal(0, 1, 12))
    emit(rng.normal(0, 1, 40), [0.25])
    # Welch: unequal sizes and variances, realistic timing magnitudes
    for n1, n2 in ((2, 2), (2, 9), (3, 5), (10, 10), (10, 30), (50, 7), (200, 300), (2000, 1500)):
        for sd2 in (1.0, 5.0):
            for shift in (0.0, 0.3, 2.0):
                emit(rng.normal(1000 + shift, 1, n1), rng.normal(1000, sd2, n2), tests=("welch",))
    emit([1.0, 1.0], [2.0, 2.0], tests=("welch",))       # both variances 0, different means: t = -inf, p = 0
    emit([1.0, 1.0, 1.0], [1.0, 1.0], tests=("welch",))  # both variances 0, same mean: nan
    emit([1.0, 1.0, 1.0], [1.0, 2.0], tests=("welch",))  # one variance 0


if __name__ == "__main__":
    main()
