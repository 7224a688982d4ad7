// SPDX-License-Identifier: Apache-2.0
// Ground truth for sampling accuracy: three methods burning about 60/30/10 % of one thread's CPU time.
package emp.sut;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Runs for {@code --seconds} on the main thread, in slices.  Each slice calls {@link #hot60}, {@link #hot30}
 * and {@link #hot10} with work in the ratio 6:3:1 and measures every call's thread CPU time with
 * {@link ThreadMXBean#getCurrentThreadCpuTime()}.  It prints the shares it actually measured, which a sampling
 * profiler's self/inclusive shares of the three methods are compared against:
 * <pre>
 *   share hot60 0.600123
 *   share hot30 0.299876
 *   share hot10 0.100001
 *   cpu_ns hot60 2400123456          (likewise hot30, hot10)
 *   total_cpu_ns 4000000000          sum over the three methods
 *   thread_cpu_ns 4000500000         CPU time of the whole measured loop, including the bookkeeping
 * </pre>
 * The slice length is drawn at random (0.2 to 2 ms of hot60 work) so that the slices cannot beat in phase with
 * a periodic sampling timer and bias the samples towards one method.
 */
public final class Hotspots {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Hotspots [options]",
            "Burns ~60/30/10 % of one thread's CPU in hot60/hot30/hot10 and prints the measured shares.",
            "  --seconds S       run time in seconds (wall clock; default 4)",
            "  --seed S          seed of the random slice lengths (default 1)",
            "output: 'share <method> <fraction>' for hot60, hot30, hot10, then cpu_ns, total_cpu_ns, thread_cpu_ns",
            "");

    /** Blackhole for the xorshift states; printed at the end so the JIT keeps every loop. */
    private static long sink;

    private Hotspots() {
    }

    // The three methods have the same body on purpose: the same cost per step, so the work ratio 6:3:1 turns
    // into a CPU ratio of about 6:3:1, and the measured shares are exact whatever the JIT does.  Each has its
    // own loop (no shared helper) so that the method itself is the leaf frame a sampler sees.

    static long hot60(long x, int steps) {
        for (int i = steps; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long hot30(long x, int steps) {
        for (int i = steps; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long hot10(long x, int steps) {
        for (int i = steps; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    public static void main(String[] argv) {
        Args a = Args.parse("Hotspots", USAGE, argv, "seconds", "seed");
        double seconds = a.doubleValue("seconds", 4.0, 0.001, 1e6);
        long seed = a.longValue("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);

        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isCurrentThreadCpuTimeSupported()) {
            System.err.println("Hotspots: thread CPU time is not supported by this JVM");
            System.exit(1);
        }
        if (!mx.isThreadCpuTimeEnabled()) {
            mx.setThreadCpuTimeEnabled(true);
        }

        // Calibrate the xorshift steps per millisecond (also warms up the three methods).
        long x = 0x2545F4914F6CDD1DL;
        int stepsPerMs = 100_000;
        for (int round = 0; round < 5; round++) {
            long c0 = mx.getCurrentThreadCpuTime();
            x = hot60(x, stepsPerMs * 10);
            x = hot30(x, stepsPerMs * 5);
            x = hot10(x, stepsPerMs);
            long c1 = mx.getCurrentThreadCpuTime();
            double ms = Math.max(1, c1 - c0) / 1e6;
            stepsPerMs = (int) Math.max(1000, Math.min(50_000_000, stepsPerMs * 16 / ms));
        }
        System.out.println("hotspots seconds=" + seconds + " steps_per_ms=" + stepsPerMs
                + " methods=emp.sut.Hotspots.hot60,emp.sut.Hotspots.hot30,emp.sut.Hotspots.hot10");
        System.out.flush();

        SplittableRandom rnd = new SplittableRandom(seed);
        long cpu60 = 0;
        long cpu30 = 0;
        long cpu10 = 0;
        long slices = 0;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long threadStart = mx.getCurrentThreadCpuTime();
        while (System.nanoTime() < deadline) {
            // hot10 gets `unit` steps, hot30 3 units, hot60 6 units; hot60's work is 0.2..2 ms.
            int unit = (int) Math.max(1, stepsPerMs * (0.2 + 1.8 * rnd.nextDouble()) / 6);
            long t0 = mx.getCurrentThreadCpuTime();
            x = hot60(x, 6 * unit);
            long t1 = mx.getCurrentThreadCpuTime();
            x = hot30(x, 3 * unit);
            long t2 = mx.getCurrentThreadCpuTime();
            x = hot10(x, unit);
            long t3 = mx.getCurrentThreadCpuTime();
            cpu60 += t1 - t0;
            cpu30 += t2 - t1;
            cpu10 += t3 - t2;
            slices++;
        }
        long threadCpu = mx.getCurrentThreadCpuTime() - threadStart;
        sink = x;

        long total = cpu60 + cpu30 + cpu10;
        double d = Math.max(1, total);
        System.out.println(String.format(Locale.ROOT, "share hot60 %.6f", cpu60 / d));
        System.out.println(String.format(Locale.ROOT, "share hot30 %.6f", cpu30 / d));
        System.out.println(String.format(Locale.ROOT, "share hot10 %.6f", cpu10 / d));
        System.out.println("cpu_ns hot60 " + cpu60);
        System.out.println("cpu_ns hot30 " + cpu30);
        System.out.println("cpu_ns hot10 " + cpu10);
        System.out.println("total_cpu_ns " + total);
        System.out.println("thread_cpu_ns " + threadCpu);
        System.out.println("hotspots done slices=" + slices + " sink=" + Long.toHexString(sink));
    }
}
