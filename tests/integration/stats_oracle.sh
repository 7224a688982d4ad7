#!/usr/bin/env bash
# stats_oracle.sh - analyzer/lib/stats.c against scipy: tests/stats/oracle.py (Debian's /usr/bin/python3 with
# python3-scipy 1.10) writes ~1100 cases (Mann-Whitney exact small-n, ties, large n, identical and one-element
# samples; the commons-math variant; Welch), and build/tests/stats_oracle_check recomputes each in C and requires
# p-value and statistic to agree to 1e-9 relative.  The case count is checked too, so an oracle that silently
# wrote fewer cases fails.  Exit 77 when scipy is missing.
source "$(dirname "$0")/../lib/common.sh"

PY=/usr/bin/python3
CHECK=$TOP/$BUILD/tests/stats_oracle_check
[ -x "$PY" ] && "$PY" -c 'import scipy.stats' 2>/dev/null ||
    skip "no scipy for /usr/bin/python3 (apt-get install python3-scipy; scripts/deps.sh lists it)"
ver=$("$PY" -c 'import scipy; print(scipy.__version__)')
[[ "$ver" == 1.10.* ]] || echo "note: scipy $ver, the oracle was written against 1.10 (method='auto' rule)"
[ -x "$CHECK" ] || fail "no $CHECK (make $BUILD/tests/stats_oracle_check)"

"$PY" "$TOP/tests/stats/oracle.py" --seed 20260501 >"$TMP/cases.csv" || fail "oracle.py failed"
out=$("$CHECK" --tol 1e-9 "$TMP/cases.csv")
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "C statistics disagree with scipy (see above)"
expect_match "case counts" '^checked 1116 cases \(mwu 378, mwu-commons 378, welch 360, exact 296\), 0 mismatches' \
    "$(tail -n 1 <<<"$out")"

# The check can fail: the first exact Mann-Whitney p-value below 1, off by 1e-8 relative, is a mismatch.
awk -F, 'BEGIN { OFS = "," } !done && $1 == "mwu" && $5 + 0 < 1 { $5 = sprintf("%.17g", $5 * (1 + 1e-8)); line = NR; done = 1 }
         { print } END { print line > "/dev/stderr" }' "$TMP/cases.csv" >"$TMP/off.csv" 2>"$TMP/line"
"$CHECK" --tol 1e-9 "$TMP/off.csv" >"$TMP/off.out" && fail "a perturbed reference p-value was not caught"
grep -q "^MISMATCH line $(cat "$TMP/line") mwu" "$TMP/off.out" || fail "perturbed case not named: $(head -n 2 "$TMP/off.out")"
echo "ok"
