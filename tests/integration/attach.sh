#!/usr/bin/env bash
# emp-attach on JDK 17 and 25 (issue 10 item 8): a recording started in a running JVM (emp.sut.AttachTarget), in
# sample mode ended by duration=, in trace mode ended by `emp-attach PID stop`; a second attach reports the running
# recording; the program's stdout is the same as without the agent; every error is one line and a non-zero exit.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"
ATTACH=${EMP_ATTACH:-$TOP/$BUILD/emp-attach}
CALLS=100000

# start JAVA NAME: AttachTarget in the background, its pid in $pid once it printed "ready".  SIGQUIT at its default:
# a background job of a non-interactive shell ignores it, and such a JVM cannot be attached to.
start() {
    rm -rf "$2.d"; mkdir "$2.d"
    env --default-signal=QUIT "$1" -cp "$SUT" emp.sut.AttachTarget --dir "$2.d" --calls $CALLS >"$2.out" 2>"$2.err" &
    pid=$!
    for _ in $(seq 200); do grep -q '^ready$' "$2.out" && return 0; sleep 0.05; done
    fail "$2: AttachTarget did not start: $(cat "$2.err")"
}
# finish NAME: let the program run to its end; exit status 0, stdout that of the pure run, nothing on stderr
finish() {
    touch "$1.d/go"
    for _ in $(seq 400); do grep -q '^calls ' "$1.out" && break; sleep 0.05; done
    touch "$1.d/end"
    wait "$pid" || fail "$1: the program's exit status is $?: $(cat "$1.err")"
    cmp -s pure.out "$1.out" || fail "$1: stdout differs from the run without the agent: $(diff pure.out "$1.out")"
    # JDK 21+ itself warns of a dynamically loaded agent (JEP 451; -XX:+EnableDynamicAgentLoading silences it)
    grep -v -e "^WARNING: A JVM TI agent has been loaded dynamically ($AGENT)\$" \
        -e '^WARNING: If a serviceability tool is in use, please run with -XX:+EnableDynamicAgentLoading to hide this warning$' \
        -e '^WARNING: Dynamic loading of agents will be disallowed by default in a future release$' "$1.err" >"$1.err2"
    [ -s "$1.err2" ] && fail "$1: the program's stderr: $(cat "$1.err2")"
    return 0
}
# attach_ok WHAT EXPECTED-LINE ARGS...: exit 0 and exactly that line on stdout, nothing on stderr
attach_ok() {
    local what=$1 line=$2; shift 2
    "$ATTACH" "$@" >a.out 2>a.err || fail "$what: exit $?: $(cat a.err)"
    expect_eq "$what" "$line" "$(cat a.out)"
    [ -s a.err ] && fail "$what: stderr: $(cat a.err)"
    return 0
}
# attach_bad WHAT STATUS EXPECTED-LINE ARGS...: that exit status and exactly that line on stderr, nothing on stdout
attach_bad() {
    local what=$1 status=$2 line=$3; shift 3
    "$ATTACH" "$@" >a.out 2>a.err
    expect_eq "$what: exit status" "$status" "$?"
    expect_eq "$what" "emp-attach: $line" "$(cat a.err)"
    [ -s a.out ] && fail "$what: stdout: $(cat a.out)"
    return 0
}
wait_complete() { # DUMP: the dump gets its END within 10 s
    for _ in $(seq 100); do
        [ "$("$ANALYZE" info --format=csv "$1" 2>/dev/null | awk -F, '$1=="files"{print $3}')" == complete ] && return 0
        sleep 0.1
    done
    fail "$1 is not complete 10 s after it should have ended"
}

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || fail "no $jdk"
    v=$("$jdk" -version 2>&1 | head -1)
    echo "== $v"
    start "$jdk" pure; finish pure
    expect_eq "$v pure run" "ready|calls $CALLS sum 154999150000|done" "$(paste -sd'|' pure.out)"

    # sample mode, ended by duration=: the busy thread's hot() holds the samples, under its own name
    start "$jdk" sample
    attach_ok "$v sample attach" "emp-attach: JVM $pid: recording, mode=sample, dump $TMP/s.emp" \
        "$pid" "mode=sample,interval=1ms,duration=2s,out=$TMP/s.emp"
    attach_bad "$v second attach" 1 \
        "JVM $pid is recording with emp already into $TMP/s.emp (nothing loaded again); \`emp-attach $pid stop\` finishes it" \
        "$pid"
    wait_complete s.emp
    expect_eq "$v end reason" duration "$(info_value s.emp meta end_reason)"
    expect_eq "$v started_by" attach "$(info_value s.emp meta started_by)"
    attach_bad "$v attach after the end" 1 "JVM $pid has finished its emp recording; emp records once per JVM" "$pid"
    attach_bad "$v stop after the end" 1 "JVM $pid has finished its emp recording; emp records once per JVM" \
        "$pid" stop
    # a thread that ran before the attach, under its full Java name (its OS name holds 15 characters of it), and
    # as a Java thread (kind java), not one of the JVM's: its CPU time is not counted as theirs
    "$ANALYZE" info --format=csv s.emp | grep -q '^threads,.*,attach-worker-long-name,[0-9]*,[0-9]*,java$' ||
        fail "$v: no Java thread attach-worker-long-name in the dump: $("$ANALYZE" info s.emp | grep -A30 ^Threads)"
    all_ns=$(info_value s.emp counters sample_thread_time_ns)
    vm_ns=$(info_value s.emp counters sample_vm_thread_time_ns)
    [ $((vm_ns * 2)) -lt "$all_ns" ] ||
        fail "$v: JVM threads hold $vm_ns of $all_ns ns of sampled CPU time: the busy Java thread counted as theirs"
    [ "$(info_value s.emp counters sample_threads_armed)" -ge 1 ] ||
        fail "$v: no Java thread counted as armed after the attach"
    # 2 s at 1 ms of a thread that burns CPU: up to 2000 samples (CPU time: fewer on a loaded machine), nearly all
    # in hot() (the other threads sleep)
    read -r samples hot < <("$ANALYZE" top --format=csv s.emp | awk -F, '
        NR > 1 { total += $2 } $1 == "emp.sut.AttachTarget.hot" { hot = $3 } END { print total, hot }')
    echo "   sample: $samples samples, $hot of them in AttachTarget.hot"
    [ "$samples" -ge 50 ] || fail "$v: only $samples samples in 2 s at 1 ms"
    [ $((hot * 100)) -ge $((samples * 80)) ] || fail "$v: AttachTarget.hot has $hot of $samples samples (< 80 %)"
    finish sample

    # trace mode, ended by `stop`: every call of counted() after the attach, exactly
    start "$jdk" trace
    attach_ok "$v trace attach" "emp-attach: JVM $pid: recording, mode=trace, dump $TMP/t.emp" \
        "$pid" "mode=trace,include=emp.sut.AttachTarget.counted,out=$TMP/t.emp"
    touch trace.d/go
    for _ in $(seq 400); do grep -q '^calls ' trace.out && break; sleep 0.05; done
    attach_ok "$v stop" "emp-attach: JVM $pid: recording finished" "$pid" stop
    expect_eq "$v trace end reason" stop "$(info_value t.emp meta end_reason)"
    # the program goes on without probes: AttachTarget, the one class rewritten, has its original bytes back
    expect_eq "$v classes restored at stop" 1 "$(info_value t.emp counters classes_restored)"
    expect_eq "$v traced calls of counted()" "$CALLS" \
        "$("$ANALYZE" calls --format=csv t.emp | awk -F, '$1 == "emp.sut.AttachTarget.counted" { print $2 }')"
    "$ANALYZE" calls --check t.emp >/dev/null 2>check.err || fail "$v: calls --check: $(cat check.err)"
    finish trace

    # a recording that the JVM's end finishes (VMDeath), here with mode=off: header, META, counters, END
    start "$jdk" off
    attach_ok "$v off attach" "emp-attach: JVM $pid: recording, mode=off, dump $TMP/o.emp" "$pid" "mode=off,out=$TMP/o.emp"
    finish off
    expect_eq "$v end reason at the JVM's end" vm_death "$(info_value o.emp meta end_reason)"
    "$ANALYZE" info o.emp >/dev/null 2>&1 || fail "$v: o.emp is not complete"

    # the JVM refuses (the agent cannot reach its writer=tcp: peer): one line, the program goes on unharmed, and
    # a later attach is refused rather than set up twice
    start "$jdk" refused
    attach_bad "$v bad out= directory" 2 "out=/nonexistent-dir/x.emp: no directory /nonexistent-dir in JVM $pid's file system" \
        "$pid" "mode=sample,out=/nonexistent-dir/x.emp"
    attach_bad "$v refused" 1 \
        "JVM $pid refused the recording (Agent_OnAttach returned -1; the JVM's stderr says why)" \
        "$pid" "mode=sample,writer=tcp:127.0.0.1:1"
    grep -qx "emp: writer=tcp:127.0.0.1:1: cannot connect: Connection refused" refused.err ||
        fail "$v: the JVM's stderr does not say why: $(cat refused.err)"
    grep -v '^emp: writer=tcp:127.0.0.1:1: cannot connect' refused.err >refused.rest; mv refused.rest refused.err
    attach_bad "$v attach after a refusal" 1 \
        "an earlier attach to JVM $pid failed half-way (its stderr says why); emp cannot record in this JVM" "$pid"
    finish refused
done

# errors that never reach a JVM
sleep 30 & other=$!
attach_bad "not a JVM" 1 "process $other (sleep) is not a Java VM (no libjvm.so mapped)" "$other"
kill $other; wait $other 2>/dev/null
attach_bad "no such process" 1 "no process $other" "$other"
attach_bad "bad pid" 2 "'12x' is not a process id" 12x
attach_bad "bad option" 2 "interval=10: expected a number with unit ns, us, ms or s (e.g. 10ms)" 1 interval=10
attach_bad "clock=wall" 2 \
    "mode=sample in a running JVM needs clock=cpu,threads=all (the threads that run already are found only that way)" \
    1 clock=wall
attach_bad "usage" 2 "usage: emp-attach PID [AGENT-OPTIONS] | emp-attach PID stop (see --help)"
"$ATTACH" --help >help.out || fail "--help exit $?"
grep -q '^usage: emp-attach PID \[AGENT-OPTIONS\]' help.out && grep -q '^  duration=TIME' help.out ||
    fail "--help lacks the usage or the agent options"
# a JVM without emp, and one that ignores SIGQUIT (started in the background of this non-interactive shell)
"$JAVA" -cp "$SUT" emp.sut.AttachTarget --dir ign.d >ign.out 2>&1 & pid=$!
mkdir -p ign.d
for _ in $(seq 200); do grep -q '^ready$' ign.out && break; sleep 0.05; done
attach_bad "stop without emp" 1 "JVM $pid has no emp recording to stop" "$pid" stop
if grep -q '^SigIgn:.*[4567cdefCDEF]$' /proc/$pid/status; then
    attach_bad "SIGQUIT ignored" 1 \
        "JVM $pid ignores SIGQUIT (started in the background of a non-interactive shell?), so it cannot be attached to" \
        "$pid"
else
    echo "   (this shell's background jobs do not ignore SIGQUIT: that error is not exercised)"
fi
touch ign.d/go ign.d/end; wait $pid
echo "ok"
