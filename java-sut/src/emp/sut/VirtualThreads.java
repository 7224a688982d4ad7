// SPDX-License-Identifier: Apache-2.0
// Traced calls on virtual threads that unmount inside a call and resume on another carrier (issue 10).
package emp.sut;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --threads N} threads (virtual by default, JDK 21+) each run {@code --rounds K} rounds of the call chain
 * {@code Chain.outer -> Chain.middle -> Chain.inner} (twice), with {@code Thread.yield()} inside {@code middle}
 * between its two {@code inner} calls and {@code Thread.sleep(1)} or {@code Thread.yield()} between rounds.  A
 * virtual thread unmounts at each yield and sleep and may resume on another carrier thread, in the middle of the
 * open calls {@code outer} and {@code middle}.  Trace with {@code include=emp.sut.VirtualThreads$Chain}.
 *
 * <p>The program counts its own calls, so a trace can be checked against exact numbers: outer and middle are
 * called N*K times, inner 2*N*K times.  {@code carrier_changes} counts the yields in {@code middle} after which
 * the virtual thread ran on a different carrier than before (0 for platform threads): a test needs it above 0
 * to know the run exercised what it tests.
 */
public final class VirtualThreads {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.VirtualThreads [options]",
            "N threads each call Chain.outer -> Chain.middle -> 2x Chain.inner K times, yielding inside middle",
            "and sleeping or yielding between rounds, so virtual threads resume on other carriers mid-call.",
            "  --threads N       threads (default 1000)",
            "  --rounds K        chain calls per thread (default 20)",
            "  --kind K          virtual (default; JDK 21+) or platform",
            "  --work N          xorshift steps in each inner call (default 2000)",
            "  --timings FILE    write CSV 'iteration,duration_ns' with one row: the whole run (for bench/)",
            "  --exit-at R       the first thread to reach round R calls System.exit(0) inside Chain.inner (the",
            "                    calls it is in stay open; no summary line)",
            "");

    static final AtomicLong OUTER = new AtomicLong(), MIDDLE = new AtomicLong(), INNER = new AtomicLong();
    static final AtomicLong CARRIER_CHANGES = new AtomicLong(), SINK = new AtomicLong();
    static int work;
    static int exitAt = -1;

    /** The traced chain (include=emp.sut.VirtualThreads$Chain); nothing else in this class is traced. */
    static final class Chain {
        static long outer(long seed, int round) {
            OUTER.incrementAndGet();
            return middle(seed, round);
        }

        static long middle(long seed, int round) {
            MIDDLE.incrementAndGet();
            long r = inner(seed, round);
            String before = carrier();
            Thread.yield(); // a virtual thread unmounts here and may come back on another carrier
            if (!before.equals(carrier())) {
                CARRIER_CHANGES.incrementAndGet();
            }
            return r ^ inner(r, round);
        }

        static long inner(long seed, int round) {
            INNER.incrementAndGet();
            if (round == exitAt) {
                System.exit(0);
            }
            long x = seed | 1;
            for (int i = 0; i < work; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            return x;
        }
    }

    /** The carrier of the current virtual thread from its toString ("VirtualThread[#22]/runnable@carrier"); ""
     * for a platform thread. */
    static String carrier() {
        String s = Thread.currentThread().toString();
        int at = s.indexOf('@');
        return s.startsWith("VirtualThread[") && at >= 0 ? s.substring(at + 1) : "";
    }

    static void run(int rounds, long seed) {
        long acc = 0;
        for (int r = 0; r < rounds; r++) {
            acc += Chain.outer(seed + r, r);
            if ((r & 1) == 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } else {
                Thread.yield();
            }
        }
        SINK.addAndGet(acc);
    }

    public static void main(String[] argv) throws Exception {
        Args a = Args.parse("VirtualThreads", USAGE, argv, "threads", "rounds", "kind", "work", "exit-at",
                "timings");
        int threads = a.intValue("threads", 1000, 1, 1_000_000);
        int rounds = a.intValue("rounds", 20, 1, 1_000_000);
        String kind = a.choice("kind", "virtual", "virtual", "platform");
        work = a.intValue("work", 2000, 0, 100_000_000);
        exitAt = a.intValue("exit-at", -1, -1, rounds - 1);
        String timingsFile = a.string("timings", null);
        Method startVirtual = null;
        if (kind.equals("virtual")) {
            try {
                startVirtual = Thread.class.getMethod("startVirtualThread", Runnable.class);
            } catch (NoSuchMethodException e) {
                System.err.println("VirtualThreads: --kind virtual needs JDK 21 or later (this is "
                        + System.getProperty("java.version") + ")");
                System.exit(1);
            }
        }
        System.out.println("virtualthreads threads=" + threads + " rounds=" + rounds + " kind=" + kind
                + " work=" + work);
        System.out.flush();
        Thread[] all = new Thread[threads];
        long start = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            final long seed = 0x9E3779B97F4A7C15L * (i + 1);
            Runnable task = () -> run(rounds, seed);
            if (startVirtual != null) {
                all[i] = (Thread) startVirtual.invoke(null, task);
            } else {
                all[i] = new Thread(task, "platform-" + i);
                all[i].start();
            }
        }
        for (Thread t : all) {
            t.join();
        }
        long total = System.nanoTime() - start;
        if (timingsFile != null) {
            Timings.write("VirtualThreads", timingsFile, new long[] { total });
        }
        System.out.println("virtualthreads done threads=" + threads + " rounds=" + rounds + " kind=" + kind
                + " outer_calls=" + OUTER.get() + " middle_calls=" + MIDDLE.get() + " inner_calls=" + INNER.get()
                + " carrier_changes=" + CARRIER_CHANGES.get() + " total_ns=" + total
                + " sink=" + Long.toHexString(SINK.get()));
    }
}
