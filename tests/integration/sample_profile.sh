#!/usr/bin/env bash
# Sample mode on real JVMs (JDK 17 and 25), each check able to fail:
#   Hotspots 60/30/10 at 1 ms for 4 s: every method's share within ±3 points of the truth the program measures
#     itself (thread CPU time per method), and at least 80 % of the expected samples (its CPU time / interval);
#   ForkJoinFib (fork, parallelism 2): samples from both workers, every worker stack rooted in Thread.run or
#     ForkJoinWorkerThread.run (or Thread.exit, dispatchUncaughtException: the VM's calls after run()), or in a
#     pseudo-frame: a failed walk, or [truncated] for a walk AGCT ended early (counted: sample_truncated equals the
#     [truncated] samples of the whole dump);
#   ForkJoinFib plain recursion: unknown_Java + not_walkable_Java under 5 % of the samples after recovery (the
#     recovery ran, with every field it reads found in the JVM's gHotSpotVMStructs tables), and every stack holding fib is main;fib;...;fib (then native frames only; or fib;...;fib
#     where AGCT ended a walk early): a recovered walk that popped a frame wrongly or named the wrong method would
#     leave another frame or root there;
#   Zip: native frames (libzip/libz) under emp.sut.Zip.compressLoop in most of its samples;
#   clock=wall over threads held in known states (WallStates, compiled here): per thread at least 100 samples and
#     at least 90 % of them in its state (sleeping, blocked, waiting in Object.wait and in park, running), read
#     from the dump by build/test/dump-states; the views (top csv header, collapsed, flame) on the dumps.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

jdks=("$JAVA")
have_jdk25 && jdks+=("$JDK25/bin/java")
STATES=$TOP/$BUILD/test/dump-states
[ -x "$STATES" ] || make -C "$TOP" --no-print-directory BUILD="$BUILD" "$BUILD/test/dump-states" >/dev/null ||
    fail "cannot build $STATES"
JAVAC=$(dirname "$(readlink -f "$(command -v "$JAVA")")")/javac
[ -x "$JAVAC" ] || fail "no javac beside $JAVA"

# clock=wall's subject: threads held in each state for the given milliseconds (sleeping in Thread.sleep, blocked
# entering a monitor another thread holds while it sleeps, waiting in Object.wait and in LockSupport.park,
# running a loop), then released and joined.
mkdir -p "$TMP/wall"
cat >"$TMP/wall/WallStates.java" <<'JAVA'
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public final class WallStates {
    static final Object monitor = new Object(), waitRoom = new Object();
    static volatile boolean done;
    static volatile long sink;

    static void nap(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (monitor) {
                held.countDown();
                while (!done) nap(20);
            }
        }, "holder");
        holder.start();
        held.await();
        Thread[] threads = {
            holder,
            new Thread(() -> { synchronized (monitor) { sink++; } }, "blocked"),
            new Thread(() -> { while (!done) nap(20); }, "sleeper"),
            new Thread(() -> {
                synchronized (waitRoom) {
                    while (!done) {
                        try {
                            waitRoom.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                }
            }, "waiter"),
            new Thread(() -> { while (!done) LockSupport.park(); }, "parker"),
            new Thread(() -> { long x = 1; while (!done) { x ^= x << 13; x ^= x >>> 7; x ^= x << 17; } sink = x; },
                       "spinner"),
        };
        for (int i = 1; i < threads.length; i++) threads[i].start();
        Thread.sleep(ms);
        done = true;
        synchronized (waitRoom) { waitRoom.notifyAll(); }
        LockSupport.unpark(threads[4]);
        for (Thread t : threads) t.join();
        System.out.println("wall states done " + sink);
    }
}
JAVA
"$JAVAC" --release 11 -d "$TMP/wall" "$TMP/wall/WallStates.java" || fail "javac WallStates.java"

run() { # NAME OPTIONS CLASS ARGS... : run the SUT under the agent; stdout in NAME.out
    local name=$1 opts=$2
    shift 2
    "$jdk" -agentpath:"$AGENT"=mode=sample,"$opts",out="$name.emp" -cp "$SUT" "$@" >"$name.out" 2>"$name.err" ||
        fail "$jdk $*: exit $? ($(tail -n 3 "$name.err"))"
    expect_eq "$name status" complete "$("$ANALYZE" info --format=csv "$name.emp" | awk -F, '$1=="files"{print $3}')"
}

for jdk in "${jdks[@]}"; do
    echo "== $jdk"
    # --- accuracy: Hotspots ---
    run hs interval=1ms emp.sut.Hotspots --seconds 4
    expect_eq "engine" perf_cpu_clock "$(info_value hs.emp meta sample_engine)"
    "$ANALYZE" top --format=csv hs.emp >hs.csv 2>/dev/null || fail "top hs.emp: exit $?"
    expect_eq "top csv header" "method,self_samples,total_samples,self_pct,total_pct" "$(head -n 1 hs.csv)"
    python3 - hs.out hs.csv <<'PY' || fail "Hotspots accuracy"
import csv, sys
truth, cpu = {}, None
for line in open(sys.argv[1]):
    f = line.split()
    if f[:1] == ["share"]:
        truth["emp.sut.Hotspots." + f[1]] = float(f[2])
    if f[:1] == ["total_cpu_ns"]:
        cpu = int(f[1])
total = {r["method"]: int(r["total_samples"]) for r in csv.DictReader(open(sys.argv[2]))}
hot = {m: total.get(m, 0) for m in truth}
n = sum(hot.values())
expected = cpu / 1e6
print(f"hot samples {n}, expected {expected:.0f} ({100 * n / expected:.1f} %)")
ok = n >= 0.8 * expected
for m, t in sorted(truth.items()):
    got = hot[m] / n if n else 0
    print(f"{m}: truth {100 * t:.2f} %, sampled {100 * got:.2f} %")
    ok &= abs(got - t) <= 0.03
sys.exit(0 if ok else 1)
PY

    # --- threads: ForkJoinFib fork, parallelism 2 ---
    run fj interval=1ms emp.sut.ForkJoinFib --n 32 --mode fork --parallelism 2 --repeat 3
    "$ANALYZE" info --format=csv fj.emp >fj-info.csv
    # the pool may replace a worker (names count on), so: at least the two workers of parallelism 2 have samples
    workers=$(awk -F, '$1=="threads" && $5 ~ /^ForkJoinPool-1-worker-/ && $7 > 0 {n++} END {print n+0}' fj-info.csv)
    [ "$workers" -ge 2 ] || fail "ForkJoinPool workers with samples: $workers, expected at least 2"
    "$ANALYZE" tree --format=csv --min-pct=0 --threads='ForkJoinPool-1-worker-*' fj.emp >fj-tree.csv 2>/dev/null
    python3 - fj-tree.csv <<'PY' || fail "ForkJoin worker stacks are not rooted in Thread.run/ForkJoinWorkerThread.run"
import csv, sys
# the thread's entry, or a method the VM calls on the thread after its run() returned: a walk that ends there is
# complete (agent/sample/sampler.c, walk_truncated); a worker the pool retires is sampled in Thread.exit
roots = {"java.lang.Thread.run", "java.util.concurrent.ForkJoinWorkerThread.run",
         "java.lang.Thread.exit", "java.lang.Thread.dispatchUncaughtException"}
good = bad = truncated = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["depth"] != "1":
        continue
    n = int(r["total_samples"])
    if r["method"] in roots:
        good += n
    elif r["method"] == "[truncated]":
        truncated += n  # AGCT ended the walk early; the agent saw that the root is not the thread's entry
    elif r["method"].startswith("["):
        pass  # a failed walk, shown as a pseudo-frame
    else:
        bad += n
        print("worker stack rooted in", r["method"], n)
print(f"worker samples rooted correctly: {good}, marked [truncated]: {truncated}, wrongly: {bad}")
sys.exit(0 if good > 0 and bad == 0 else 1)
PY
    "$ANALYZE" collapsed fj.emp >fj.folded 2>/dev/null || fail "collapsed fj.emp: exit $?"
    expect_eq "sample_truncated counter = [truncated] samples" \
        "$(awk '/^\[truncated\];/ {n += $NF} END {print n + 0}' fj.folded)" "$(info_value fj.emp counters sample_truncated)"

    # --- unknown_Java recovery: plain recursion ---
    run fib interval=1ms emp.sut.ForkJoinFib --n 38 --mode plain --repeat 2
    samples=$(info_value fib.emp counters samples)
    unk=$(info_value fib.emp counters agct_unknown_Java)
    nw=$(info_value fib.emp counters agct_not_walkable_Java)
    rec=$(info_value fib.emp counters sample_recovered_unknown_Java)
    echo "fib: $samples samples, recovered $rec, still unknown_Java $unk, not_walkable_Java $nw"
    [ "$samples" -gt 100 ] || fail "fib: only $samples samples"
    [ $(( (unk + nw) * 100 )) -lt $(( samples * 5 )) ] || fail "fib: unknown_Java+not_walkable_Java $((unk + nw)) of $samples >= 5 %"
    expect_eq "fib: JVM structure tables" complete "$(info_value fib.emp meta sample_vmstructs)"
    recovered=$(( $(info_value fib.emp counters sample_recover_named) + $(info_value fib.emp counters sample_recover_by_pc) ))
    [ "$recovered" -gt 0 ] || fail "fib: no failed walk was recovered (sample_recover_named + sample_recover_by_pc = 0)"
    "$ANALYZE" collapsed --threads=main fib.emp >fib.folded 2>/dev/null || fail "collapsed fib.emp: exit $?"
    python3 - fib.folded <<'PY' || fail "fib: stacks holding fib are not main;fib;...;fib"
import sys
fib = bad = short = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    if "emp.sut.ForkJoinFib.fib" not in frames:
        continue
    java = [f for f in frames if "!" not in f]  # native frames (lib.so!symbol) may follow the Java ones only
    fib += int(n)
    if frames[:len(java)] != java or any(f != "emp.sut.ForkJoinFib.fib" for f in java[1:]):
        bad += int(n)
        print("bad fib stack:", stack[:300], n)
    elif java[0] == "emp.sut.ForkJoinFib.fib":
        short += int(n)  # AGCT ended the walk early (JDK 17 does, recovery or not): main is missing
    elif java[0] != "emp.sut.ForkJoinFib.main":
        bad += int(n)
        print("bad fib root:", stack[:300], n)
print(f"fib samples {fib}, walk ended early (no main) {short}, wrongly shaped {bad}")
sys.exit(0 if fib > 0 and bad == 0 else 1)
PY

    # --- native frames: Zip ---
    run zip interval=1ms emp.sut.Zip --seconds 2
    "$ANALYZE" collapsed zip.emp >zip.folded 2>/dev/null || fail "collapsed zip.emp: exit $?"
    python3 - zip.folded <<'PY' || fail "Zip: no native frames under compressLoop"
import sys
under = native = 0
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    frames = stack.split(";")
    if "emp.sut.Zip.compressLoop" not in frames:
        continue
    under += int(n)
    below = frames[frames.index("emp.sut.Zip.compressLoop") + 1:]
    if any(f.startswith(("libz.so", "libzip.so")) for f in below):
        native += int(n)
print(f"compressLoop samples {under}, with libz/libzip frames {native}")
sys.exit(0 if under > 0 and native * 2 > under else 1)
PY
    "$ANALYZE" flame zip.emp -o zip.svg 2>/dev/null || fail "flame zip.emp: exit $?"
    python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' zip.svg || fail "zip.svg is not well-formed XML"
    grep -Eq 'libz(ip)?\.so' zip.svg || fail "zip.svg has no libz/libzip frame"

    # --- clock=wall: every live thread, with the state it is in ---
    run wall clock=wall,interval=5ms -cp "$TMP/wall" WallStates 1500
    expect_eq "wall engine" wall_tgkill "$(info_value wall.emp meta sample_engine)"
    "$STATES" wall.emp >wall.states || fail "dump-states wall.emp: exit $?"
    python3 - wall.states <<'PY' || fail "clock=wall: thread states"
import sys
want = {"sleeper": "sleeping", "holder": "sleeping", "blocked": "blocked", "waiter": "waiting", "parker": "waiting",
        "spinner": "running"}
got = {}
for line in open(sys.argv[1]):
    thread, state, n = line.rstrip("\n").split("\t")
    got.setdefault(thread, {})[state] = int(n)
ok = True
for thread, state in sorted(want.items()):
    c = got.get(thread, {})
    total = sum(c.values())
    share = c.get(state, 0) / total if total else 0
    print(f"{thread}: {total} samples, {100 * share:.1f} % {state} ({c})")
    ok &= total >= 100 and share >= 0.9
sys.exit(0 if ok else 1)
PY
done
have_jdk25 || skip "JDK 17 passed; JDK 25 not checked (not at $JDK25)"
echo "ok"
