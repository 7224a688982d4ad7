#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vthread-trace.sh - what trace mode costs a program whose traced calls run on virtual threads (JDK 25): pure vs emp
# mode=trace (include=emp.sut.VirtualThreads$Chain) with writer=null and writer=file, interleaved, one JVM per run,
# on emp.sut.VirtualThreads with virtual threads (every call of Chain.middle unmounts in Thread.yield, so the
# mount/unmount events and the per-virtual-thread states are in the bill) and with platform threads (the same
# calls without them).  Prints per configuration and variant the median wall time and process CPU time (user+sys)
# and their ratios to pure.
#
# Usage: bench/vthread-trace.sh [--quick]        (make bench-vthread-trace)
# Knobs (env): VMS (7; quick 3), THREADS (2000), ROUNDS (20), WORK (200), JDK25, PIN, KEEP_RAW, BUILD.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/runner.sh
. "$HERE/lib/runner.sh"
bench_args "$@"
((quick)) && : "${VMS:=3}"
: "${VMS:=7}" "${THREADS:=2000}" "${ROUNDS:=20}" "${WORK:=200}" "${JDK25:=/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA=$JDK25/bin/java
[[ -x $JAVA ]] || bench_die "no JDK 25 at $JDK25 (virtual threads need JDK 21+)"
bench_init "vthread-trace$( ((quick)) && echo -quick)"
echo "knobs: VMS=$VMS THREADS=$THREADS ROUNDS=$ROUNDS WORK=$WORK" >>"$BENCH_DIR/machine.txt"
INCLUDE='emp.sut.VirtualThreads$Chain'
bench_variant pure ""
bench_variant emp-null "-agentpath:$EMP_LIB=mode=trace,include=$INCLUDE,writer=null"
bench_variant emp-file "-agentpath:$EMP_LIB=mode=trace,include=$INCLUDE,writer=file,out=@OUT@/data/run.emp"
for kind in virtual platform; do
	bench_config "$kind" "$THREADS" 0 emp.sut.VirtualThreads --kind "$kind" --threads "$THREADS" --rounds "$ROUNDS" \
		--work "$WORK"
done
bench_run "$VMS"
{
	echo "## vthread-trace ($(date -u +%Y-%m-%d), $(sed -n 's/^java: //p' "$BENCH_DIR/machine.txt"))"
	echo
	echo "$THREADS threads x $ROUNDS rounds of Chain.outer -> middle -> 2x inner (work $WORK), $VMS JVMs per cell;"
	echo "medians of the JVM's wall time and CPU time (user+sys), ratio to pure of the same threads' kind."
	echo
	awk -F, 'NR > 1 && $7 == 0 { k = $1 "," $4; n[k]++; w[k, n[k]] = $8; c[k, n[k]] = $9 + $10; keys[k] = 1 }
		function med(a, k, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
		END {
			printf "| threads | variant | JVMs | wall s | wall / pure | CPU s | CPU / pure |\n|---|---|---|---|---|---|---|\n"
			split("virtual platform", kinds, " "); split("pure emp-null emp-file", vars, " ")
			for (a = 1; a <= 2; a++) {
				p = kinds[a] ",pure"
				if (!(p in keys)) continue
				pw = med(w, p, n[p]); pc = med(c, p, n[p])
				for (b = 1; b <= 3; b++) {
					k = kinds[a] "," vars[b]
					if (!(k in keys)) continue
					mw = med(w, k, n[k]); mc = med(c, k, n[k])
					printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f |\n", kinds[a], vars[b], n[k], mw, mw / pw, mc, mc / pc
				}
			}
		}' "$BENCH_DIR/manifest.csv"
	echo
	sed 's/^/    /' "$BENCH_DIR/machine.txt"
} | tee "$BENCH_DIR/report.md"
