#!/usr/bin/env bash
# Sample mode's threads=all: the JVM's own threads (JIT compilers, GC, VM thread), on JDK 17 and 25, each check
# able to fail:
#   Soak (allocation with -XX:+UseParallelGC -XX:ParallelGCThreads=2, class loading: real GC and JIT work) at 1 ms:
#     a complete dump with META sample_threads=all; samples on at least one C1/C2 compiler thread and one GC worker
#     (kind jvm in the info thread table); every compiler-thread sample rooted in [JIT compiler], every GC-worker
#     sample in [GC], none with a Java frame, at least 90 % with libjvm.so frames; the Java workers' samples carry
#     no category root; sample_vm_threads_armed > 0; sample_vm_samples equals the samples of the kind-jvm threads
#     exactly; their CPU time is part of sample_thread_time_ns; the report header says threads=all;
#   threads=java: no kind-jvm thread, no category root, sample_vm_threads_armed = 0;
#   engine=ctimer and engine=itimer: JVM-thread samples too (timer_create on another thread's CPU clock; the
#     process-wide timer's signals on JVM threads are samples, not losses);
#   take-over (build/test/jni-attach): a native thread sampled as a JVM thread, then attached through JNI, shows up
#     as two dump threads with its tid — kind jvm "emp-native" rooted in [native thread], then kind java
#     "emp-attached" — and sample_vm_takeovers >= 1;
#   clock=wall,threads=all: the JVM does not start, with the agent's one-line message (none of it on stdout).
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

JNI_ATTACH=$TOP/$BUILD/test/jni-attach
[ -x "$JNI_ATTACH" ] || fail "$JNI_ATTACH missing (make $BUILD/test/jni-attach)"

jdks=("$JAVA")
have_jdk25 && jdks+=("$JDK25/bin/java")

GC=(-XX:+UseParallelGC -XX:ParallelGCThreads=2 -Xmx64m)

run() { # NAME OPTIONS SECONDS: Soak under the agent
    local name=$1 opts=$2 secs=$3
    "$jdk" "${GC[@]}" -agentpath:"$AGENT"=mode=sample,interval=1ms,"$opts"out="$name.emp" -cp "$SUT" emp.sut.Soak \
        --seconds "$secs" --threads 2 >"$name.out" 2>"$name.err" || fail "$jdk $name: exit $? ($(tail -n 3 "$name.err"))"
    [ -s "$name.err" ] && fail "$jdk $name: output on stderr: $(head -n 3 "$name.err")"
    expect_eq "$name status" complete "$("$ANALYZE" info --format=csv "$name.emp" | awk -F, '$1=="files"{print $3}')"
    "$ANALYZE" info --format=csv "$name.emp" >"$name.info"
}

# check_group DUMP THREADS ROOT: the samples of the threads matching THREADS: all rooted in ROOT, no Java frame
# (a frame is native when it names its object, "lib.so!symbol", pseudo when it is "[...]"), >= 90 % with libjvm.so
# frames.  Prints the count of samples.
check_group() {
    "$ANALYZE" collapsed --threads "$2" "$1" 2>/dev/null | python3 -c '
import sys
want = sys.argv[1]
total = libjvm = 0
for line in sys.stdin:
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    n, frames = int(n), stack.split(";")
    total += n
    if frames[0] != want:
        sys.exit(f"stack rooted in {frames[0]}, not {want}: {stack[:300]}")
    java = [f for f in frames if not f.startswith("[") and "!" not in f]
    if java:
        sys.exit(f"Java frame {java[0]} in a JVM-thread sample: {stack[:300]}")
    libjvm += n if any(f.startswith("libjvm.so!") for f in frames) else 0
if total == 0 or libjvm < 0.9 * total:
    sys.exit(f"{total} samples, {libjvm} with libjvm.so frames")
print(total)' "$3"
}

for jdk in "${jdks[@]}"; do
    echo "== $jdk"
    # --- threads=all (the default with clock=cpu) ---
    run all "" 3
    expect_eq "META sample_threads" all "$(info_value all.emp meta sample_threads)"
    armed=$(info_value all.emp counters sample_vm_threads_armed)
    vm_samples=$(info_value all.emp counters sample_vm_samples)
    vm_time=$(info_value all.emp counters sample_vm_thread_time_ns)
    time_ns=$(info_value all.emp counters sample_thread_time_ns)
    echo "threads=all: $armed JVM threads armed, $vm_samples samples on them, $vm_time of $time_ns ns CPU"
    [ "$armed" -gt 0 ] || fail "sample_vm_threads_armed = $armed"
    [ "$vm_time" -gt 0 ] && [ "$vm_time" -le "$time_ns" ] ||
        fail "sample_vm_thread_time_ns $vm_time not within sample_thread_time_ns $time_ns"
    # threads table: table,file,thread,os_tid,name,events,samples,kind
    expect_eq "samples of kind-jvm threads = sample_vm_samples" "$vm_samples" \
        "$(awk -F, '$1=="threads" && $8=="jvm" {n += $7} END {print n + 0}' all.info)"
    jit=$(awk -F, '$1=="threads" && $8=="jvm" && $5 ~ /^C[12] CompilerThre/ && $7 > 0 {n++} END {print n + 0}' all.info)
    gc=$(awk -F, '$1=="threads" && $8=="jvm" && $5 ~ /^GC Thread#/ && $7 > 0 {n++} END {print n + 0}' all.info)
    [ "$jit" -ge 1 ] || fail "no compiler thread with samples: $(grep '^threads' all.info)"
    [ "$gc" -ge 1 ] || fail "no GC worker with samples: $(grep '^threads' all.info)"
    n=$(check_group all.emp 'C1 CompilerThre*,C2 CompilerThre*' '[JIT compiler]') || fail "compiler threads: $n"
    echo "compiler threads: $jit with samples, $n samples"
    n=$(check_group all.emp 'GC Thread#*' '[GC]') || fail "GC workers: $n"
    echo "GC workers: $gc with samples, $n samples"
    "$ANALYZE" collapsed --threads 'soak-worker-*' all.emp 2>/dev/null >workers.folded
    [ -s workers.folded ] || fail "no samples on the Java workers"
    grep -E '^\[(JIT compiler|GC|VM|native thread)\]' workers.folded &&
        fail "a Java worker's sample has a JVM-thread category root"
    "$ANALYZE" top --limit 1 all.emp >all.top 2>&1 || fail "top all.emp: exit $?"
    grep -q "threads=all: $vm_samples of the samples on $armed JVM threads" all.top ||
        fail "top's header does not report the JVM threads: $(head -n 5 all.top)"

    # --- threads=java ---
    run java threads=java, 2
    expect_eq "META sample_threads" java "$(info_value java.emp meta sample_threads)"
    expect_eq "threads=java: sample_vm_threads_armed" 0 "$(info_value java.emp counters sample_vm_threads_armed)"
    expect_eq "threads=java: sample_vm_samples" 0 "$(info_value java.emp counters sample_vm_samples)"
    expect_eq "threads=java: kind-jvm threads" 0 "$(awk -F, '$1=="threads" && $8=="jvm" {n++} END {print n + 0}' java.info)"
    "$ANALYZE" collapsed java.emp 2>/dev/null >java.folded
    [ -s java.folded ] || fail "threads=java: no samples"
    grep -E '^\[(JIT compiler|GC|VM|native thread)\]' java.folded && fail "threads=java: a JVM-thread category root"

    # --- the timer engines arm other threads too ---
    for e in ctimer itimer; do
        run $e engine=$e, 2
        s=$(info_value $e.emp counters sample_vm_samples)
        echo "engine=$e: $s samples on JVM threads"
        [ "$s" -gt 0 ] || fail "engine=$e: no JVM-thread samples"
        expect_eq "engine=$e: kind-jvm samples = sample_vm_samples" "$s" \
            "$(awk -F, '$1=="threads" && $8=="jvm" {n += $7} END {print n + 0}' $e.info)"
    done

    # --- take-over: a native thread sampled as a JVM thread, then attached through JNI ---
    libjvm=$(dirname "$(dirname "$(readlink -f "$(command -v "$jdk")")")")/lib/server/libjvm.so
    "$JNI_ATTACH" "$libjvm" "$AGENT=mode=sample,interval=1ms,out=jni.emp" >jni.out 2>jni.err ||
        fail "jni-attach: exit $? ($(tail -n 3 jni.err))"
    [ -s jni.err ] && fail "jni-attach: output on stderr: $(head -n 3 jni.err)"
    tid=$(sed -n 's/^tid //p' jni.out)
    expect_eq "jni-attach last line" ok "$(tail -n 1 jni.out)"
    "$ANALYZE" info --format=csv jni.emp >jni.info
    # both states of the tid, in dump-thread order: kind and name
    expect_eq "dump threads of tid $tid" "jvm emp-native,java emp-attached" \
        "$(awk -F, -v t="$tid" '$1=="threads" && $4==t && $7 > 0 {printf "%s%s %s", n++ ? "," : "", $8, $5}' jni.info)"
    [ "$(info_value jni.emp counters sample_vm_takeovers)" -ge 1 ] || fail "sample_vm_takeovers is 0"
    roots=$("$ANALYZE" collapsed --threads emp-native jni.emp 2>/dev/null | cut -d';' -f1 | sort -u)
    expect_eq "root of the native thread's samples" "[native thread]" "$roots"

    # --- clock=wall refuses threads=all ---
    "$jdk" -agentpath:"$AGENT"=clock=wall,threads=all -version >wall.out 2>wall.err && fail "clock=wall,threads=all accepted"
    # (the JVM prints its own "Error occurred during initialization of VM" on stdout; the agent prints nothing there)
    grep -q '^emp' wall.out && fail "clock=wall,threads=all: the agent printed on stdout: $(cat wall.out)"
    grep -q 'version' wall.err && fail "clock=wall,threads=all: the JVM ran: $(cat wall.err)"
    expect_eq "clock=wall,threads=all: agent message" \
        "emp: threads=all applies to clock=cpu only (wall-clock samples of idle JVM threads say nothing; use threads=java)" \
        "$(grep '^emp:' wall.err)"
done
echo "ok"
