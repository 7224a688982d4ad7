#!/usr/bin/env bash
# emp's own threads are invisible to the program (issue 10 item 6), on JDK 17 and 25: ThreadViews prints every view
# a program has of its JVM's threads (Thread.activeCount, Thread.enumerate, Thread.getAllStackTraces, ThreadMXBean
# counts and ids), and `jcmd PID Thread.print` lists the Java threads from outside; a run with the agent must show
# exactly what a run without it shows.
#   mode=sample (clock=cpu, threads=all: writer and JVM-thread scanner), mode=trace, and clock=wall (its sampler
#   thread is native too: thread states come from the JVM's fields, not JVMTI): everything identical, thread ids
#   and jcmd Thread.print included.
source "$(dirname "$0")/../lib/common.sh"
cd "$TMP"

# views JAVA NAME [AGENT-OPTIONS]: NAME.out (the views) and NAME.jcmd (Java threads of Thread.print as "name #id",
# compiler threads left out: the JVM starts and stops them by load)
views() {
    local agent=() pid
    [ -n "${3:-}" ] && agent=(-agentpath:"$AGENT"="$3,out=$2.emp")
    rm -f go
    # SIGQUIT at its default: a background job of a non-interactive shell ignores it, and the JVM then cannot be
    # attached to (jcmd)
    env --default-signal=QUIT "$1" "${agent[@]}" -cp "$SUT" emp.sut.ThreadViews --wait go >"$2.out" 2>"$2.err" &
    pid=$!
    # up to 20 s by the clock (an interrupted sleep must not shorten the wait); a JVM that ended is reported as such
    local deadline=$((SECONDS + 20))
    until grep -q '^ready$' "$2.out"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            fail "$2: ThreadViews ended (status $?) before it was ready: $(cat "$2.out" "$2.err" | head -5)"
        fi
        ((SECONDS < deadline)) || fail "$2: ThreadViews not ready after 20 s: $(cat "$2.err")"
        sleep 0.05
    done
    jcmd "$pid" Thread.print >"$2.print" 2>&1 || fail "$2: jcmd Thread.print failed: $(head -3 "$2.print")"
    sed -n 's/^"\([^"]*\)" \(#[0-9]*\).*/\1 \2/p' "$2.print" | grep -v CompilerThread >"$2.jcmd"
    touch go
    wait "$pid" || fail "$2: exit status $?: $(cat "$2.err")"
    [ -s "$2.err" ] && fail "$2: stderr: $(cat "$2.err")"
    [ -n "${3:-}" ] && { "$ANALYZE" info "$2.emp" >/dev/null 2>&1 || fail "$2: dump not complete"; }
    return 0
}
# The ids of the three threads the JVM starts first (Reference Handler, Finalizer, Signal Dispatcher) vary by one
# between runs of JDK 25 without any agent on a loaded machine (Reference Handler 11 in one run, 12 in the next): they
# compare as "?".  Every other id must be equal: a thread of emp's that took an id would shift the later ones
# (Notification Thread, Common-Cleaner, main's threads).
early='Reference Handler|Finalizer|Signal Dispatcher'
norm() { sed -E "s/[0-9]+:($early)/?:\1/g; s/^($early) #[0-9]+\$/\1 #?/" "$1"; }
same() { # WHAT FILE-A FILE-B
    cmp -s <(norm "$2") <(norm "$3") || fail "$1 differ from a run without the agent:"$'\n'"$(diff "$2" "$3")"
}

for jdk in "$JAVA" "$JDK25/bin/java"; do
    [ -x "$(command -v "$jdk")" ] || fail "no $jdk"
    v=$("$jdk" -version 2>&1 | head -1)
    views "$jdk" pure
    grep -q "^enumerate main,views-1,views-2$" pure.out || fail "$v: unexpected pure views: $(cat pure.out)"
    grep -q '^main #1$\|^main #3$' pure.jcmd || fail "$v: no main thread in jcmd's Thread.print: $(cat pure.print)"

    views "$jdk" sample "mode=sample"
    same "$v mode=sample: the program's views" pure.out sample.out
    same "$v mode=sample: jcmd Thread.print" pure.jcmd sample.jcmd

    # Trace mode links its FFM probes at VMInit (tracer.c ffm_link; on JDK 17 the attempt), which makes the JDK
    # start its Common-Cleaner before the Notification Thread: the two swap ids (neither is emp's; with an include=
    # that reaches JDK classes, no FFM, no swap).  The same threads and ids, each view compared apart from that order
    views "$jdk" trace "mode=trace,include=emp.sut.*"
    same "$v mode=trace: the program's views" <(grep -v '^mx.ids' pure.out) <(grep -v '^mx.ids' trace.out)
    ids() { sed -n 's/^mx.ids //p' "$1" | tr , '\n' | sort; }
    same "$v mode=trace: ThreadMXBean ids and names" <(ids pure.out | grep -Ev ":($early)$" | cut -d: -f1 | sort) \
        <(ids trace.out | grep -Ev ":($early)$" | cut -d: -f1 | sort)
    same "$v mode=trace: ThreadMXBean names" <(ids pure.out | cut -d: -f2 | sort) <(ids trace.out | cut -d: -f2 | sort)
    same "$v mode=trace: jcmd Thread.print" <(cut -d' ' -f1 pure.jcmd | sort) <(cut -d' ' -f1 trace.jcmd | sort)

    views "$jdk" wall "mode=sample,clock=wall"
    same "$v clock=wall: the program's views" pure.out wall.out
    same "$v clock=wall: jcmd Thread.print" pure.jcmd wall.jcmd
done
echo "ok"
