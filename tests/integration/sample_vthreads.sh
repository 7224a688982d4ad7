#!/usr/bin/env bash
# sample_vthreads.sh - sample mode on virtual threads: a stack is complete from the continuation's bottom, with the
# frames HotSpot had not yet thawed read from the continuation's stack chunks, or it is marked [truncated].
#   emp.sut.VirtualThreads (JDK 25): each virtual thread yields inside a 4-deep call chain, so it resumes on another
#   carrier with only its top frames thawed onto the carrier's stack, where AsyncGetCallTrace goes from the last
#   thawed frame straight to Continuation.enterSpecial; the agent reads the rest from the stack chunks
#   (continuation.c).  With engine=perf and engine=ctimer, every folded stack holding enterSpecial (a virtual
#   thread's sample) is exactly one of:
#     complete   rooted in the carrier's ForkJoinWorkerThread.run, and the Java frames after enterSpecial begin
#                with Continuation.enter, then enter0 or finish; after enter0 VirtualThread$VThreadContinuation$1.run,
#                then a VirtualThread method (run, notifyJvmtiStart/End); native frames only after the last Java
#                frame; a sample in the program's hot loop (Chain.inner the last Java frame) ends exactly in
#                VirtualThreads.run;Chain.outer;Chain.middle;Chain.inner (the task's own method and its callees);
#     truncated  rooted in [truncated], with a Java frame other than Continuation.enter after enterSpecial (or,
#                with Continuation.enter there, a carrier walk that stopped short of its entry: kept apart);
#     switching  enterSpecial is the last Java frame, native frames only after it, libjvm's first (the
#                continuation is being thawed or frozen: a freeze's Java frames are not reported, README limits),
#                or none (the PC in enterSpecial's own code);
#   the counters account for them exactly: sample_continuation = all of them, sample_continuation_truncated = the
#   truncated ones, sample_continuation_recovered (read from chunks) among the complete ones and > 0 (the run
#   exercised the chunk walk), sample_truncated = all [truncated] stacks of the dump; and at most 1 % of them are
#   truncated (measured: 0 of ~30,000 per run, README; a chunk the walk cannot read is a bug to see, the 1 % leaves
#   room for frames no run here produced, such as a deoptimized frame's).
#   JDK 17 (no virtual threads): the same program on platform threads has no enterSpecial and counts 0.
# Exit 0 pass, 1 fail, 77 when JDK 25 is absent (after the JDK 17 part passed).
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
[ -x "$ANALYZE" ] || fail "no $ANALYZE (make)"
[ -f "$SUT" ] || fail "no $SUT (make)"

# run JAVA NAME OPTIONS ARGS...: VirtualThreads under the agent into NAME.emp, folded stacks in NAME.folded
run() {
    local jdk=$1 name=$2 opts=$3
    shift 3
    "$jdk" -Djdk.virtualThreadScheduler.parallelism=2 -agentpath:"$AGENT"=mode=sample,interval=1ms,"$opts",out="$name.emp" \
        -cp "$SUT" emp.sut.VirtualThreads "$@" >"$name.out" 2>"$name.err" ||
        fail "$name: exit $? ($(tail -n 3 "$name.err"))"
    [ -s "$name.err" ] && fail "$name: the agent printed: $(head -n 5 "$name.err")"
    grep -q '^virtualthreads done' "$name.out" || fail "$name: no summary line: $(cat "$name.out")"
    "$ANALYZE" collapsed "$name.emp" >"$name.folded" 2>/dev/null || fail "collapsed $name.emp: exit $?"
    expect_eq "$name: sample_truncated = [truncated] samples" \
        "$(awk '/^\[truncated\];/ {n += $NF} END {print n + 0}' "$name.folded")" \
        "$(info_value "$name.emp" counters sample_truncated)"
}

# check_vthreads NAME: the samples taken on a carrier while it ran a virtual thread are that virtual thread's
# (`--threads='virtual #*'`): every sample in the hot loop (Chain.inner, which runs only mounted) is among them and
# no sample of the main thread (a platform thread) is; they exist (VTHREAD events in the dump), info counts them
# alike, and they name between 2 and 500 virtual threads (the program's)
check_vthreads() {
    local name=$1
    "$ANALYZE" collapsed --threads='virtual #*' "$name.emp" >"$name.vfolded" 2>/dev/null || fail "collapsed --threads $name.emp: exit $?"
    expect_eq "$name: Chain.inner samples attributed to a virtual thread" \
        "$(awk '/Chain\.inner/ {n += $NF} END {print n + 0}' "$name.folded")" \
        "$(awk '/Chain\.inner/ {n += $NF} END {print n + 0}' "$name.vfolded")"
    expect_eq "$name: main-thread samples attributed to a virtual thread" 0 \
        "$(awk '/VirtualThreads\.main/ {n += $NF} END {print n + 0}' "$name.vfolded")"
    local switches distinct
    switches=$(info_value "$name.emp" events vthread)
    [ "${switches:-0}" -gt 0 ] || fail "$name: no VTHREAD event in the dump"
    expect_eq "$name: info's samples_in_virtual_threads = the samples --threads='virtual #*' selects" \
        "$(awk '{n += $NF} END {print n + 0}' "$name.vfolded")" \
        "$(info_value "$name.emp" events samples_in_virtual_threads)"
    distinct=$(info_value "$name.emp" events virtual_threads_sampled)
    [ "${distinct:-0}" -ge 2 ] && [ "$distinct" -le 500 ] ||
        fail "$name: $distinct virtual threads sampled, not in [2, 500] (the program starts 500)"
}

# --- JDK 17: platform threads, nothing to mark ---------------------------------------------------------------------
run "$JAVA" p17 engine=auto --kind platform --threads 20 --rounds 10 --work 200000
expect_eq "JDK 17: stacks through enterSpecial" 0 "$(grep -c 'Continuation\.enterSpecial' p17.folded)"
expect_eq "JDK 17: sample_continuation_truncated" 0 "$(info_value p17.emp counters sample_continuation_truncated)"
expect_eq "JDK 17: sample_continuation" 0 "$(info_value p17.emp counters sample_continuation)"
expect_eq "JDK 17: VTHREAD events" 0 "$(info_value p17.emp events vthread)"

have_jdk25 || skip "sample vthreads: no JDK 25 at $JDK25, the virtual-thread part is not run"

# --- JDK 25: virtual threads ---------------------------------------------------------------------------------------
for engine in perf ctimer wall; do
    if [ "$engine" = wall ]; then opts=clock=wall; else opts=engine=$engine; fi
    run "$JDK25/bin/java" "vt-$engine" "$opts" --threads 500 --rounds 20 --work 200000
    check_vthreads "vt-$engine"
    python3 - "vt-$engine.folded" "$(info_value "vt-$engine.emp" counters sample_continuation)" \
        "$(info_value "vt-$engine.emp" counters sample_continuation_truncated)" \
        "$(info_value "vt-$engine.emp" counters sample_continuation_recovered)" <<'PY' ||
import sys
C, V, S = "jdk.internal.vm.Continuation.", "java.lang.VirtualThread", "emp.sut.VirtualThreads"
def complete(java):  # the Java frames after enterSpecial: enter, then enter0 or finish; enter0, $1.run, VirtualThread.*
    ok = java[0] == C + "enter" and (len(java) < 2 or java[1] in (C + "enter0", C + "finish"))
    if ok and len(java) >= 3 and java[1] == C + "enter0":
        ok = java[2] == V + "$VThreadContinuation$1.run" and (len(java) < 4 or java[3].startswith(V + "."))
    return ok
special = "jdk.internal.vm.Continuation.enterSpecial"
kinds = {"complete": 0, "truncated": 0, "truncated_root": 0, "switching": 0, "hot": 0}
bad = []
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    if special not in frames:
        continue
    after = frames[frames.index(special) + 1:]
    java = []  # the Java frames right after enterSpecial, up to the first native or pseudo frame
    for f in after:
        if "!" in f or f.startswith("["):
            break
        java.append(f)
    native_rest = all("!" in f for f in after[len(java):])
    if frames[0] == "[truncated]":
        # with enter after enterSpecial: the carrier's walk stopped short of its entry (not a continuation's)
        kind = None if not java else "truncated" if java[0] != C + "enter" else "truncated_root"
    elif frames[0] != "java.util.concurrent.ForkJoinWorkerThread.run":
        kind = None
    elif not java:
        kind = "switching" if (not after or after[0].startswith("libjvm.so!")) and native_rest else None
    else:
        kind = "complete" if complete(java) and native_rest else None
        # the hot loop: the task's method and its callees, exactly
        if kind and java[-1] == S + "$Chain.inner" and java[-4:] != [S + ".run", S + "$Chain.outer",
                                                                       S + "$Chain.middle", S + "$Chain.inner"]:
            kind = None
        if kind:
            kinds["hot"] += int(count) if java[-1] == S + "$Chain.inner" else 0
    if kind is None:
        bad.append(line.strip())
    else:
        kinds[kind] += int(count)
print(sys.argv[1], kinds)
if bad:
    sys.exit("%d virtual-thread stacks neither complete nor [truncated], e.g.\n  %s" % (len(bad), "\n  ".join(bad[:3])))
total, truncated, recovered = (int(a) for a in sys.argv[2:5])
stacks = kinds["complete"] + kinds["truncated"] + kinds["truncated_root"] + kinds["switching"]
if total != stacks:
    sys.exit("sample_continuation %d, virtual-thread samples %d" % (total, stacks))
if truncated != kinds["truncated"]:
    sys.exit("sample_continuation_truncated %d, [truncated] virtual-thread samples %d" % (truncated, kinds["truncated"]))
if not 0 < recovered <= kinds["complete"]:
    sys.exit("sample_continuation_recovered %d: not in (0, %d complete]" % (recovered, kinds["complete"]))
if not kinds["hot"]:
    sys.exit("no complete sample in the hot loop: %s" % kinds)
if 100 * kinds["truncated"] > total:
    sys.exit("%d of %d virtual-thread samples truncated (more than 1 %%)" % (kinds["truncated"], total))
PY
        fail "vt-$engine: virtual-thread stacks"
done
echo "sample vthreads: ok"
