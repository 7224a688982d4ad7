#!/usr/bin/env bash
# The agent's life cycle with mode=off on JDK 17 and 25: a valid, complete dump after a normal end, System.exit,
# SIGTERM (JVM handlers, and our own under -Xrs); a readable truncated dump after SIGKILL; bad options refuse the
# load with one line naming the option; `help`; nothing on stdout; a dynamic attach refused.  Without JDK 25 or jcmd
# the rest still runs and the script exits 77 (SKIP) naming what it could not check.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

check_complete() { # FILE REASON
    [ -f "$1" ] || fail "no dump $1"
    "$ANALYZE" info "$1" >/dev/null 2>"$TMP/err" || fail "info $1 exit $?: $(cat "$TMP/err")"
    expect_eq "status of $1" complete "$("$ANALYZE" info --format=csv "$1" | awk -F, '$1=="files"{print $3}')"
    expect_eq "end reason of $1" "$2" "$(info_value "$1" meta end_reason)"
}

# Both JDKs are part of the claim: a missing one makes the script SKIP (exit 77, the reason on its last line) after
# checking what it can, never PASS.
missing=()
command -v "$JAVA" >/dev/null || fail "no java ($JAVA)"
jdks=("$JAVA")
if have_jdk25; then jdks+=("$JDK25/bin/java"); else missing+=("JDK 25 (not at $JDK25)"); fi
for jdk in "${jdks[@]}"; do
    rm -f ./*.emp
    # normal end; pid in the name and in META
    "$jdk" -agentpath:"$AGENT"=mode=off,out=off-%p.emp -cp "$SUT" emp.sut.CallTree --help >stdout.txt 2>stderr.txt ||
        fail "$jdk mode=off run failed: $(cat stderr.txt)"
    f=$(ls off-*.emp) || fail "no off-PID.emp"
    pid=${f#off-}; pid=${pid%.emp}
    check_complete "$f" vm_death
    expect_eq "META pid" "$pid" "$(info_value "$f" meta pid)"
    expect_eq "META mode" off "$(info_value "$f" meta mode)"
    expect_eq "META options" "mode=off,out=off-%p.emp" "$(info_value "$f" meta options)"
    expect_match "META jvm_version" '^[0-9]+' "$(info_value "$f" meta jvm_version)"
    # the writer's nice value: 19 below the JVM's where lowering it is allowed (nice(1) tells), else what RLIMIT_NICE
    # allows (ulimit -e: down to 20 - e) when below the JVM's, else the JVM's; and why
    base=$(nice); want=$((base - 19 < -20 ? -20 : base - 19))
    if [ "$(nice -n -19 nice 2>/dev/null)" = "$want" ]; then
        got=$want
    else
        e=$(ulimit -e); floor=$base
        [[ $e =~ ^[0-9]+$ ]] && ((e <= 40 && 20 - e < base && 20 - e > want)) && floor=$((20 - e))
        got="$floor ($want refused: Permission denied)"
    fi
    expect_eq "META writer_nice" "$got" "$(info_value "$f" meta writer_nice)"
    "$jdk" -agentpath:"$AGENT"=mode=off,writer_nice=19,out=nice.emp -cp "$SUT" emp.sut.CallTree --help \
        >/dev/null 2>&1 || fail "$jdk: writer_nice=19 run failed"
    expect_eq "META writer_nice with writer_nice=19 (raising it is always allowed)" 19 \
        "$(info_value nice.emp meta writer_nice)"
    # stdout is the program's alone: byte-identical to a run without the agent
    "$jdk" -cp "$SUT" emp.sut.CallTree --help >stdout.pure 2>/dev/null
    cmp -s stdout.txt stdout.pure || fail "$jdk: stdout differs with the agent loaded"
    [ -s stderr.txt ] && fail "$jdk: the agent printed on stderr with log=warn: $(cat stderr.txt)"

    # System.exit(2) from an argument error
    "$jdk" -agentpath:"$AGENT"=mode=off,out=exit.emp -cp "$SUT" emp.sut.CallTree --no-such-flag >/dev/null 2>&1
    expect_eq "exit status under the agent" 2 "$?"
    check_complete exit.emp vm_death

    # SIGTERM with the JVM's own handlers: shutdown runs, VMDeath flushes
    "$jdk" -agentpath:"$AGENT"=mode=off,out=term.emp -cp "$SUT" emp.sut.Hotspots --seconds 60 >/dev/null 2>&1 &
    jpid=$!
    sleep 1.5; kill -TERM $jpid; wait $jpid
    check_complete term.emp vm_death

    # SIGTERM with -Xrs: the JVM installs no handler, ours finishes the dump and re-raises
    "$jdk" -Xrs -agentpath:"$AGENT"=mode=off,out=xrs.emp -cp "$SUT" emp.sut.Hotspots --seconds 60 >/dev/null 2>&1 &
    jpid=$!
    sleep 1.5; kill -TERM $jpid; wait $jpid
    expect_eq "-Xrs SIGTERM exit status (128+15)" 143 "$?"
    check_complete xrs.emp sigterm

    # duration=1s: the dump is finished (END's reason) while the program still runs, to its own end
    "$jdk" -agentpath:"$AGENT"=mode=sample,duration=1s,out=dur.emp -cp "$SUT" emp.sut.Hotspots --seconds 6 \
        >dur.out 2>dur.err &
    jpid=$!
    for _ in $(seq 50); do
        [ "$("$ANALYZE" info --format=csv dur.emp 2>/dev/null | awk -F, '$1=="files"{print $3}')" == complete ] && break
        sleep 0.1
    done
    kill -0 $jpid 2>/dev/null || fail "$jdk duration=1s: the program ended before the dump was finished"
    check_complete dur.emp duration
    wait $jpid || fail "$jdk duration=1s: exit status $?: $(cat dur.err)"
    grep -q "^share hot60" dur.out || fail "$jdk duration=1s: the program did not finish: $(cat dur.out)"
    [ -s dur.err ] && fail "$jdk duration=1s: stderr: $(cat dur.err)"

    # SIGKILL: the dump reads back up to its last flush and is reported as truncated (exit 3)
    "$jdk" -agentpath:"$AGENT"=mode=off,out=kill.emp,flush=100ms -cp "$SUT" emp.sut.Hotspots --seconds 60 \
        >/dev/null 2>&1 &
    jpid=$!
    sleep 1.5; kill -KILL $jpid; wait $jpid 2>/dev/null
    "$ANALYZE" info kill.emp >/dev/null 2>err.txt
    expect_eq "info exit status on a killed JVM's dump" 3 "$?"
    expect_match "truncation message" "kill.emp: truncated: ends at byte [0-9]+ without an END chunk" "$(cat err.txt)"
    "$ANALYZE" info --allow-truncated kill.emp >/dev/null 2>&1 || fail "--allow-truncated should exit 0"
    [ "$(info_value kill.emp counters threads)" != "" ] || fail "the killed dump has no COUNTERS chunk (flush=100ms)"
done

# Bad options: the JVM does not start, one line on stderr names the option, no dump is left behind.
bad() { # OPTIONS EXPECTED-MESSAGE
    rm -f ./*.emp
    "$JAVA" -agentpath:"$AGENT"="$1" -version >out.txt 2>err.txt && fail "options '$1' were accepted"
    grep -qxF "emp: $2" err.txt || fail "options '$1': expected 'emp: $2' on stderr, got: $(cat err.txt)"
    # (the JVM itself prints "Error occurred during initialization of VM" on stdout; we print nothing there)
    grep -q "^emp:" out.txt && fail "options '$1': the agent printed on stdout"
    ls ./*.emp >/dev/null 2>&1 && fail "options '$1': a dump was left behind"
    return 0
}
bad "mode=bogus" "mode=bogus: expected sample, trace or off"
bad "interval=10" "interval=10: expected a number with unit ns, us, ms or s (e.g. 10ms)"
bad "mode=off,frobnicate=1" "unknown option 'frobnicate' (try help)"
bad "mode=trace" "mode=trace needs at least one include= pattern"
bad "mode=off,mode=off" "option mode given twice"
bad "mode=off,out=/nonexistent-dir/x.emp" "out=/nonexistent-dir/x.emp: cannot create: No such file or directory"
bad "mode=off,writer=tcp:127.0.0.1:1" "writer=tcp:127.0.0.1:1: cannot connect: Connection refused"

# help: every option with its default on stderr, nothing on stdout, exit status 0 without the JVM's
# "Error occurred during initialization of VM", and the program does not run
for jdk in "$JAVA" "$JDK25/bin/java"; do
    "$jdk" -agentpath:"$AGENT"=help -cp "$SUT" emp.sut.CallTree >out.txt 2>err.txt
    expect_eq "$jdk help exit status" 0 "$?"
    [ -s out.txt ] && fail "$jdk help printed on stdout: $(head -3 out.txt)"
    grep -q "Error occurred" err.txt && fail "$jdk help made the JVM report an error"
    for opt in mode= interval= clock= depth= include= exclude= iteration= onfull= out= writer= flush= ringsize= \
        timesource= log= help; do
        grep -q "^  $opt" err.txt || fail "help does not list $opt"
    done
    expect_eq "$jdk help output" "$(head -1 err.txt)" "emp agent options: -agentpath:libemp.so=key=value,key=value,..."
done
[ ${#missing[@]} -eq 0 ] || skip "everything else passed; not checked: $(IFS=,; echo "${missing[*]}")"
echo "ok"
