#!/usr/bin/env bash
# latency.sh - latency under load (issue 12): emp-load against emp.sut.Server, emp-analyze latency, GC pauses in
# the dump.  Checks, in order:
#  1. the histogram equals Java's HdrHistogram 2.2.2 (fetched from Maven Central at test time, sha1-checked) on
#     the same recorded values: 40 synthetic logs (bucket edges, 1 µs … 1 h log-uniform, ties, 1 … 20,000 values):
#     every count and percentile of `emp-analyze latency` equals HdrOracle.java's;
#  2. the issue's test, with its numbers: a pause injected into the server (SIGSTOP 310 ms, then SIGCONT) 4 s into
#     a 10 s run at 1000 req/s over 16 connections: corrected p99 >= 100 ms and corrected max >= 300 ms, while the
#     uncorrected p99 is < 100 ms.  The run's length is what makes both hold and both fail-able: the pause delays
#     ~300 requests by 0..300 ms corrected, >= ~200 of them by >= 100 ms, 2 % of 10,000 (corrected p99 >= 100 ms
#     needs 1 %, 100); uncorrected, only the requests written into the stopped server's sockets (at most one per
#     connection, 16) wait through it, so the uncorrected p99 stays < 100 ms unless more than 84 other requests
#     take >= 100 ms from their write: a stalled machine, not the pause (then the test exits 77 naming it; a
#     generator that timed uncorrected from the due time puts the ~200 into it and fails).  The uncorrected max
#     does include those <= 16 requests (~300 ms): it is not asserted below 300 ms, their number is.  From the
#     --log: the completions have a gap >= 200 ms (300 ms less what emp-load's own scheduling delay on a loaded
#     machine takes off its edges), >= 150 requests have a corrected latency >= 100 ms, at most 16 requests were
#     written before the server resumed and answered after it, of the requests due within the gap the median
#     corrected latency is >= 100 ms and the median uncorrected one < 100 ms, and the p99s and maxes recomputed
#     from the log's rows meet the same bounds; emp-load's CSV equals HdrHistogram on its --log, the log's exact
#     order statistics lie within the 1/1024 bucket width of it, and emp-analyze latency on the log prints
#     emp-load's numbers;
#  3. GC pauses in the dump on JDK 17 and 25 (Serial GC, 48 MB heap, /alloc load, mode=sample): the PAUSES
#     entries equal the gc_pauses counter and the count of -Xlog:gc's pauses that started before the recording
#     ended (META gc_pauses_until_mono_ns); emp-analyze latency's gc table and the SVG
#     show them;
#  4. errors, each counted under its name: bad flags (exact one-line messages, exit 2), nothing listening (every
#     request "refused", exit 1), the server killed mid-run (answered + failed = due, "server gone"), a server that
#     resets every connection ("reset") or closes it before replying ("closed"), a server that hangs (the run ends
#     on time, "timeout" and "unsent" counted), bad logs for emp-analyze latency; the in-process generator's output.
source "$(dirname "$0")/../lib/common.sh"
LOAD=${EMP_LOAD:-$TOP/$BUILD/emp-load}
for f in "$LOAD" "$ANALYZE" "$SUT" "$AGENT"; do [ -e "$f" ] || fail "no $f (make)"; done
. "$TOP/scripts/maven.sh"
HDR_JAR=$(maven_get "${EMP_TEST_CACHE:-$HOME/.cache/emp-tests}" org.hdrhistogram HdrHistogram 2.2.2) ||
    skip "cannot fetch org.hdrhistogram:HdrHistogram:2.2.2 from Maven (needed as the histogram's reference)"
oracle() { "$JAVA" -cp "$HDR_JAR" "$TOP/tests/tools/HdrOracle.java" "$@"; }
# `emp-analyze latency --format=csv` reduced to the oracle's rows (table column dropped, latency table only)
analyzed() { "$ANALYZE" latency --format=csv "$@" | awk -F, 'NR == 1 || $1 == "latency"' | cut -d, -f2-; }

# start_server OUT [JAVA ARGS...]: the server on a free port in the background; sets SRV_PID and PORT.
start_server() {
    local out=$1 java=$2; shift 2
    "$java" "$@" -cp "$SUT" emp.sut.Server --port 0 >"$out" 2>"$out.err" &
    SRV_PID=$!
    for _ in $(seq 200); do
        PORT=$(sed -n 's/^server listening port=\([0-9]*\).*/\1/p' "$out")
        [ -n "$PORT" ] && return 0
        kill -0 "$SRV_PID" 2>/dev/null || fail "server died at start: $(cat "$out.err")"
        sleep 0.05
    done
    fail "server did not print 'server listening' within 10 s"
}
stop_server() { kill -CONT "$SRV_PID" 2>/dev/null; kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; true; }
# csv_value CSV ROW COLUMN: a field of emp-load's CSV (ROW = first field, e.g. corrected; error,KIND; info,KEY)
csv_value() { python3 -c '
import sys
row, col = sys.argv[2].split(","), sys.argv[3]
lines = sys.argv[1].splitlines()
head = lines[0].split(",")
for l in lines[1:]:
    f = l.split(",")
    if f[:len(row)] == row:
        print(f[head.index(col)] if col in head and len(row) == 1 else f[-1]); break' "$1" "$2" "$3"; }

# ---- 1. the histogram against HdrHistogram ----------------------------------------------------------------------
python3 - "$TMP/oracle" <<'PY'
import math, os, random, sys
d = sys.argv[1]; os.makedirs(d)
rng = random.Random(12)
H = 3600 * 10**6
edges = [0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 4097, H - 1, H]
edges += [v for k in range(11, 32) for v in ((1 << k) - 1, 1 << k, (1 << k) + 1, 3 << (k - 1)) if v <= H]
sets = [edges, [5] * 1000, [0], [H], list(range(1, 1001))]
for n in (1, 2, 3, 7, 99, 100, 101, 999, 1000, 1001, 10001, 20000):
    sets.append([int(math.exp(rng.uniform(0, math.log(H)))) for _ in range(n)])
while len(sets) < 40:
    n = rng.randint(1, 5000)
    base = rng.choice([100, 300, 2000, 50000, 10**6])
    sets.append([min(H, int(rng.expovariate(1 / base)) + rng.choice([0, 0, 0, 10**5])) for _ in range(n)])
for i, vals in enumerate(sets):
    with open(os.path.join(d, f"set{i:02d}.csv"), "w") as f:
        f.write("due_ns,sent_ns,done_ns,status\n")
        t = 10**9
        for v in vals:
            lat = v * 1000 + rng.randint(0, 999)       # truncated to µs as emp-load does
            sent = t + rng.randint(0, lat)              # uncorrected = a part of it
            f.write(f"{t},{sent},{t + lat},{rng.choice([200, 200, 200, 404])}\n")
            if rng.random() < 0.05:
                f.write(f"{t},,{t + 5},refused\n")
            t += 1000
PY
# compared below, with part 2's log, in one run of the oracle (one JVM start fewer)

# ---- 2. a 300 ms pause of the server during a 1000 req/s run ------------------------------------------------------
start_server "$TMP/srv.out" "$JAVA"
"$LOAD" --target "127.0.0.1:$PORT" --rate 1000 --duration 1500ms >/dev/null || true # warm-up (JIT), not measured
# The server is stopped for 310 ms, not 300: the first request due after the stop is due up to one interval (1 ms)
# after it began, so a 300 ms stop can leave the corrected max at 299.3 ms (seen once in five CI runs); the
# assertion stays the issue's (max >= 300 ms).
( sleep 4; kill -STOP "$SRV_PID"; sleep 0.31; kill -CONT "$SRV_PID" ) &
stopper=$!
csv=$("$LOAD" --target "127.0.0.1:$PORT" --rate 1000 --duration 10s --connections 16 --log "$TMP/stop.csv" \
    --format csv)
rc=$?
wait "$stopper"
echo "$csv"
expect_eq "emp-load exit status (all answered)" 0 "$rc"
expect_eq "answered" 10000 "$(csv_value "$csv" corrected count)"
cp99=$(csv_value "$csv" corrected p99_us); cmax=$(csv_value "$csv" corrected max_us)
[ "$cp99" -ge 100000 ] || fail "corrected p99 $cp99 us < 100 ms: the pause does not show"
[ "$cmax" -ge 300000 ] || fail "corrected max $cmax us < 300 ms"
# the uncorrected p99 < 100 ms is checked in the log's script below, which can tell the pause from a stalled machine
python3 - "$TMP/stop.csv" "$csv" <<'PY'; rc=$?
import math, sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1])][1:]
out = {l.split(",")[0]: l.split(",") for l in sys.argv[2].splitlines()}
def fail(m): print("FAIL:", m); sys.exit(1)
if len(rows) != 10000 or any(r[3] != "200" for r in rows): fail(f"log: {len(rows)} rows, statuses {set(r[3] for r in rows)}")
corr = sorted((int(r[2]) - int(r[0])) // 1000 for r in rows)
unc = sorted((int(r[2]) - int(r[1])) // 1000 for r in rows)
dues = sorted(int(r[0]) for r in rows)
steps = {dues[i + 1] - dues[i] for i in range(len(dues) - 1)}
if not steps <= {999999, 1000000, 1000001}: fail(f"due times are not 1 ms apart: {sorted(steps)[:5]}")
for name, v in (("corrected", corr), ("uncorrected", unc)):
    got = out[name]
    if int(got[1]) != len(v) or int(got[7]) != v[-1]: fail(f"{name}: count/max {got[1]}/{got[7]} vs log {len(v)}/{v[-1]}")
    for p, g in zip((50, 90, 99, 99.9, 99.99), got[2:7]):
        exact = v[max(1, math.ceil(math.nextafter(p, 0) / 100 * len(v))) - 1]  # HdrHistogram: p less one ulp
        if not exact <= int(g) <= exact + exact // 1024 + 1:
            fail(f"{name} p{p}: emp-load {g}, log's exact order statistic {exact}")
slow_c = sum(x >= 100000 for x in corr)
if slow_c < 150: fail(f"only {slow_c} requests >= 100 ms corrected (expected >= 150)")
done = sorted(int(r[2]) for r in rows)
gap, g0, g1 = max((done[i + 1] - done[i], done[i], done[i + 1]) for i in range(len(done) - 1))
if gap < 200_000_000: fail(f"largest gap between completions {gap / 1e6:.1f} ms < 200 ms")
across = sum(int(r[1]) < g1 <= int(r[2]) for r in rows)
if across > 16: fail(f"{across} requests written before the server resumed: more than the 16 connections")
inside = [r for r in rows if g0 < int(r[0]) < g1]
mc = sorted(int(r[2]) - int(r[0]) for r in inside)[len(inside) // 2] // 1000
mu = sorted(int(r[2]) - int(r[1]) for r in inside)[len(inside) // 2] // 1000
print(f"log: gap {gap / 1e6:.1f} ms, {slow_c} requests >= 100 ms corrected, {across} written before it ended;"
      f" {len(inside)} due within it: median {mc} us corrected, {mu} us uncorrected")
if mc < 100000 or mu >= 100000: fail("the requests due within the pause: corrected should see it, uncorrected not")
# the issue's figures recomputed from the rows (HdrHistogram's rank: ceil(p/100 * n), p less one ulp)
def p99(v): return v[max(1, math.ceil(math.nextafter(99, 0) / 100 * len(v))) - 1]
if p99(corr) < 100000 or corr[-1] < 300000: fail(f"log: corrected p99 {p99(corr)} us, max {corr[-1]} us: the pause does not show")
up99 = int(out["uncorrected"][4])
slow_u = [r for r in rows if int(r[2]) - int(r[1]) >= 100_000_000]
stalled = [r for r in slow_u if not int(r[1]) < g1 <= int(r[2])]  # not waiting through the pause: the machine
print(f"uncorrected: p99 {up99} us (log {p99(unc)} us), max {unc[-1]} us; {len(slow_u)} requests >= 100 ms from"
      f" their write, {len(slow_u) - len(stalled)} of them through the pause, {len(stalled)} elsewhere")
if up99 < 100000 and p99(unc) < 100000: sys.exit(0)
if len(stalled) >= len(rows) // 100 - 16:
    print(f"the uncorrected p99 is >= 100 ms because {len(stalled)} requests outside the pause took >= 100 ms"); sys.exit(77)
fail(f"uncorrected p99 {up99} us (log {p99(unc)} us) >= 100 ms: the pause shows in the uncorrected figures")
PY
[ "$rc" -eq 77 ] && skip "latency: the machine stalled requests outside the pause (see above); not emp-load's fault"
[ "$rc" -eq 0 ] || exit 1
oracle_all=$(cd "$TMP/oracle" && oracle set*.csv "$TMP/stop.csv") || fail "HdrOracle failed: $oracle_all"
want=$(echo "$oracle_all" | grep -v "^$TMP/stop.csv,")
got=$(cd "$TMP/oracle" && analyzed set*.csv) || fail "emp-analyze latency failed"
[ "$want" == "$got" ] || { diff <(echo "$want") <(echo "$got") | head -20; fail "percentiles differ from HdrHistogram"; }
echo "histogram: $(($(echo "$got" | wc -l) - 1)) rows of 40 logs equal HdrHistogram 2.2.2's, 6 figures each"
want=$(echo "$oracle_all" | grep "^$TMP/stop.csv," | cut -d, -f2-)
got=$(echo "$csv" | sed -n '/^corrected,/p; /^uncorrected,/p')
expect_eq "emp-load vs HdrHistogram on its own log" "$want" "$got"
got=$(analyzed "$TMP/stop.csv" | cut -d, -f2- | tail -n +2)
expect_eq "emp-analyze latency vs emp-load" "$want" "$got"

# the same (warm) server killed 1 s into a 3 s run
( sleep 1; kill -9 "$SRV_PID" ) &
csv=$("$LOAD" --target "127.0.0.1:$PORT" --rate 500 --duration 3s --format csv --log "$TMP/kill.csv"); rc=$?
wait "$!"
wait "$SRV_PID" 2>/dev/null
echo "$csv" | grep -v ',0$'
expect_eq "killed: exit" 1 "$rc"
python3 - "$csv" "$TMP/kill.csv" <<'PY' || exit 1
import sys
rows = [l.split(",") for l in sys.argv[1].splitlines()]
v = {tuple(r[:2]): r[-1] for r in rows if r[0] in ("error", "info")}
answered = int([r for r in rows if r[0] == "corrected"][0][1])
failed = sum(int(c) for (k, n), c in v.items() if k == "error" and n != "non_2xx")
due = int(v[("info", "due")])
def fail(m): print("FAIL:", m); sys.exit(1)
if due != 1500: fail(f"due {due}, expected 1500")
if answered + failed != due: fail(f"answered {answered} + failed {failed} != due {due}")
if answered < 100 or int(v[("error", "refused")]) < 100: fail(f"answered {answered}, refused {v[('error', 'refused')]}")
gone = float(v.get(("info", "server_gone_s"), "nan"))
if not 0.5 <= gone <= 2.0: fail(f"server_gone_s {gone}, expected about 1")
log = open(sys.argv[2]).read().splitlines()[1:]
if len(log) != due: fail(f"log has {len(log)} rows, due {due}")
print(f"killed: {answered} answered, {failed} failed, server gone at {gone} s")
PY

# ---- 3. GC pauses in the dump -------------------------------------------------------------------------------------
gc_run() { # JAVA TAG
    local java=$1 tag=$2 dump=$TMP/gc-$2.emp
    start_server "$TMP/gc-$tag.out" "$java" -XX:+UseSerialGC -Xmx48m -Xmn4m -Xlog:gc:file="$TMP/gc-$tag.log":timenanos \
        -agentpath:"$AGENT"=mode=sample,out="$dump"
    # Its exit status is not the point here (on a loaded machine a few requests may time out): the log is.
    "$LOAD" --target "127.0.0.1:$PORT" --rate 200 --duration 1500ms --mix cheap:50,alloc:50 \
        --log "$TMP/gc-$tag.csv" >/dev/null
    stop_server
    local counter xlog entries
    counter=$(info_value "$dump" counters gc_pauses)
    # -Xlog:gc's pauses that started before the recording ended (META gc_pauses_until_mono_ns; the log's time is
    # System.nanoTime, CLOCK_MONOTONIC, at the pause's end): the JVM runs on after VMDeath until it exits, and a
    # pause there is in its log but cannot be in the dump.
    local until after
    until=$(info_value "$dump" meta gc_pauses_until_mono_ns)
    [ -n "$until" ] || fail "$tag: no META gc_pauses_until_mono_ns"
    read -r xlog after < <(awk -v until="$until" '/Pause/ {
            t = substr($1, 2) + 0; d = $NF; sub(/ms$/, "", d); start = t - d * 1e6
            if (start < until) n++; else late++ } END { print n + 0, late + 0 }' "$TMP/gc-$tag.log")
    [ "$after" -eq 0 ] || echo "$tag: $after GC pause(s) after the recording ended (in -Xlog:gc, not in the dump)"
    [ "${counter:-0}" -ge 1 ] || fail "$tag: no GC pause recorded (gc_pauses=$counter)"
    expect_eq "$tag: gc_pauses counter vs -Xlog:gc pauses" "$xlog" "$counter"
    expect_eq "$tag: lost_gc_pause_full" 0 "$(info_value "$dump" counters lost_gc_pause_full)"
    local gc
    gc=$("$ANALYZE" latency --format=csv "$TMP/gc-$tag.csv" "$dump" -o "$TMP/gc-$tag.svg" | awk -F, '$1 == "gc"')
    entries=$(echo "$gc" | cut -d, -f3)
    expect_eq "$tag: PAUSES entries vs counter" "$counter" "$entries"
    local inspan shaded
    inspan=$(echo "$gc" | cut -d, -f4)
    shaded=$(grep -c '<title>GC pause' "$TMP/gc-$tag.svg")
    [ "$inspan" -ge 1 ] || fail "$tag: no GC pause within the load's time span ($gc)"
    expect_eq "$tag: shaded pauses in the SVG" "$inspan" "$shaded"
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/gc-$tag.svg" ||
        fail "$tag: SVG is not well-formed"
    echo "$tag: $counter GC pauses (= -Xlog:gc's before the end), $inspan during the load, shaded in the SVG"
}
gc_run "$JAVA" java
if have_jdk25; then gc_run "$JDK25/bin/java" jdk25; else echo "jdk25: not installed, GC check on JDK 17 only"; fi

# ---- 4. errors ----------------------------------------------------------------------------------------------------
bad() { # EXPECTED-MESSAGE ARGS...
    local want=$1; shift
    local msg; msg=$("$LOAD" "$@" 2>&1 >/dev/null); local rc=$?
    expect_eq "emp-load $* exit" 2 "$rc"
    expect_eq "emp-load $* message" "$want" "$msg"
}
T=(--target 127.0.0.1:9 --rate 10 --duration 1s)
bad "emp-load: --target HOST:PORT is required (try --help)" --rate 1 --duration 1s
bad "emp-load: --rate R is required (try --help)" --target 127.0.0.1:9 --duration 1s
bad "emp-load: --duration TIME is required (try --help)" --target 127.0.0.1:9 --rate 1
bad "emp-load: --target localhost: expected HOST:PORT with a port 1..65535 (try --help)" --target localhost "${T[@]:2}"
bad "emp-load: --target h:0: expected HOST:PORT with a port 1..65535 (try --help)" --target h:0 "${T[@]:2}"
bad "emp-load: --rate 0: expected requests per second, > 0 and at most 1e7 (try --help)" "${T[@]}" --rate 0
bad "emp-load: --rate fast: expected requests per second, > 0 and at most 1e7 (try --help)" "${T[@]}" --rate fast
bad "emp-load: --duration 10: expected a number with unit us, ms or s (e.g. 10s) (try --help)" "${T[@]}" --duration 10
bad "emp-load: --timeout 0s: must be between 1us and 3600s (try --help)" "${T[@]}" --timeout 0s
bad "emp-load: --connections 0: expected an integer 1..10000 (try --help)" "${T[@]}" --connections 0
bad "emp-load: --mix: route 'cheap' given twice (try --help)" "${T[@]}" --mix cheap:1,cheap:2
bad "emp-load: --mix: weight of 'cpu' must be an integer 0..1000000, got '-1' (try --help)" "${T[@]}" --mix cpu:-1
bad "emp-load: --format xml: expected text, csv or json (try --help)" "${T[@]}" --format xml
bad "emp-load: unknown option '--pipeline' (try --help)" "${T[@]}" --pipeline
bad "emp-load: option '--log' needs a value (try --help)" "${T[@]}" --log
bad "emp-load: --log /nonexistent/x.csv: No such file or directory" "${T[@]}" --log /nonexistent/x.csv
"$LOAD" --help | grep -q '^usage: emp-load --target HOST:PORT' || fail "--help"

# nothing listening: a port that was free a moment ago
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
csv=$("$LOAD" --target "127.0.0.1:$free" --rate 200 --duration 500ms --format csv); rc=$?
expect_eq "refused: exit" 1 "$rc"
expect_eq "refused: answered" 0 "$(csv_value "$csv" corrected count)"
expect_eq "refused: every request refused" 100 "$(csv_value "$csv" error,refused x)"
expect_eq "refused: due" 100 "$(csv_value "$csv" info,due x)"

# a server that reads each request and then resets the connection (SO_LINGER 0: RST), or closes it (FIN) unanswered
bad_server() { # reset|closed
    python3 -c 'import socket, struct, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128); print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.recv(4096)
    if sys.argv[1] == "reset": c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()' "$1" >"$TMP/$1.port" &
    SRV_PID=$!
    PORT=
    for _ in $(seq 100); do PORT=$(cat "$TMP/$1.port"); [ -n "$PORT" ] && break; sleep 0.05; done
    csv=$("$LOAD" --target "127.0.0.1:$PORT" --rate 100 --duration 500ms --format csv); rc=$?
    kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
    expect_eq "$1: exit" 1 "$rc"
    expect_eq "$1: answered" 0 "$(csv_value "$csv" corrected count)"
    expect_eq "$1: every request counted as $1" 50 "$(csv_value "$csv" "error,$1" x)"
    echo "$1: 50 of 50 requests counted as $1"
}
bad_server reset
bad_server closed

# a server that hangs for the whole run: ends at duration + timeout
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128); print(s.getsockname()[1], flush=True); time.sleep(60)' \
    >"$TMP/hang.port" &
SRV_PID=$!
for _ in $(seq 100); do PORT=$(cat "$TMP/hang.port"); [ -n "$PORT" ] && break; sleep 0.05; done
t0=$(date +%s%N)
csv=$("$LOAD" --target "127.0.0.1:$PORT" --rate 100 --duration 1s --timeout 500ms --format csv); rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
kill "$SRV_PID"; wait "$SRV_PID" 2>/dev/null
expect_eq "hang: exit" 1 "$rc"
[ "$ms" -lt 3000 ] || fail "hang: the run took $ms ms (duration 1 s + timeout 0.5 s)"
timeouts=$(csv_value "$csv" error,timeout x); unsent=$(csv_value "$csv" error,unsent x)
[ "$timeouts" -ge 16 ] || fail "hang: $timeouts timeouts (at least the 16 connections' requests)"
expect_eq "hang: due = timeouts + unsent" 100 "$((timeouts + unsent))"
echo "hang: ended after $ms ms, $timeouts timeouts, $unsent unsent"

# emp-analyze latency errors
printf 'a,b\n' >"$TMP/bad.csv"
msg=$("$ANALYZE" latency "$TMP/bad.csv" 2>&1); rc=$?
expect_eq "bad log exit" 1 "$rc"
expect_eq "bad log message" "emp-analyze: $TMP/bad.csv: not an emp-load log (line 1 is not 'due_ns,sent_ns,done_ns,status')" "$msg"
printf 'due_ns,sent_ns,done_ns,status\n1,2,3,200\n5,6,x,200\n' >"$TMP/bad2.csv"
msg=$("$ANALYZE" latency "$TMP/bad2.csv" 2>&1); rc=$?
expect_eq "bad row exit" 1 "$rc"
expect_eq "bad row message" "emp-analyze: $TMP/bad2.csv:3: expected due_ns,sent_ns,done_ns,status" "$msg"
msg=$("$ANALYZE" latency "$TMP/gc-java.emp" 2>&1); rc=$?
expect_eq "dump only exit" 2 "$rc"
expect_match "dump only message" "no emp-load log given" "$msg"

# the in-process generator (the composite arrangement): emp-load's CSV, every request answered
out=$("$JAVA" -cp "$SUT" emp.sut.Server --port 0 --inproc-load 200 --duration 1s --mix cheap:70,alloc:20,cpu:10)
expect_eq "inproc header" "measure,count,p50_us,p90_us,p99_us,p999_us,p9999_us,max_us" "$(echo "$out" | sed -n 2p)"
expect_eq "inproc answered" 200 "$(csv_value "$(echo "$out" | tail -n +2)" corrected count)"
expect_match "inproc summary" "^server inproc done requests=200 completed=200 rate=200.000 connections=16 mix=cheap:70,alloc:20,cpu:10$" "$(echo "$out" | tail -1)"
msg=$("$JAVA" -cp "$SUT" emp.sut.Server --port 0 --inproc-load 10 2>&1); rc=$?
expect_eq "inproc without duration" "2 Server: --inproc-load and --duration go together (try --help)" "$rc $msg"
echo "latency: all checks passed"
