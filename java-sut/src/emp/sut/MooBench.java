// SPDX-License-Identifier: Apache-2.0
// MooBench equivalent: the recursive monitoredMethod of the Kieker overhead benchmark (design.md section 4).
package emp.sut;

/**
 * A MooBench-style overhead benchmark.  Each top-level call is one call of
 * {@link #monitoredMethod(long, int) monitoredMethod(methodTime, depth)}, which recurses until its depth argument
 * reaches 1 and then busy-waits {@code methodTime} ns, so one top-level call runs exactly {@code depth}
 * invocations of {@code emp.sut.MooBench.monitoredMethod} (depth, depth-1, ..., 1 as the second argument).
 * Instrumentation filters target {@code emp.sut.MooBench.monitoredMethod}.
 */
public final class MooBench {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.MooBench [options]",
            "MooBench equivalent: --calls top-level calls of monitoredMethod(methodTime, depth).",
            "  --calls N         top-level calls (default 2000000)",
            "  --depth D         recursion depth: monitoredMethod invocations per top-level call (default 10)",
            "  --method-time NS  busy-wait at the bottom of the recursion, in ns (default 0)",
            "  --timings FILE    write CSV 'iteration,duration_ns', one row per top-level call (all calls;",
            "                    like MooBench, drop the first half as warm-up when analysing)",
            "");

    /** Blackhole for the results of the top-level calls, printed at the end. */
    private long sink;

    /**
     * Recurses while {@code depth > 1}; at the bottom (depth 1) busy-waits until {@code methodTime} ns have
     * passed and returns the last System.nanoTime() reading.  An instance method, like MooBench's.
     *
     * <p>The wait spins on System.nanoTime() instead of sleeping: the thread stays on its CPU (so CPU-time
     * samplers see it and no scheduler wake-up latency is added), and nanoTime has ns resolution where
     * Thread.sleep has at best tens of microseconds.  With methodTime = 0 the loop still reads the clock once,
     * as MooBench does.
     */
    public long monitoredMethod(long methodTime, int depth) {
        if (depth > 1) {
            return monitoredMethod(methodTime, depth - 1);
        }
        long deadline = System.nanoTime() + methodTime;
        long now;
        do {
            now = System.nanoTime();
        } while (now < deadline);
        return now;
    }

    public static void main(String[] argv) {
        Args a = Args.parse("MooBench", USAGE, argv, "calls", "depth", "method-time", "timings");
        int calls = a.intValue("calls", 2_000_000, 1, 500_000_000);
        int depth = a.intValue("depth", 10, 1, 10_000); // deeper needs a larger -Xss
        long methodTime = a.longValue("method-time", 0, 0, 60_000_000_000L);
        String timingsFile = a.string("timings", null);

        System.out.println("moobench calls=" + calls + " depth=" + depth + " method_time_ns=" + methodTime
                + " method=emp.sut.MooBench.monitoredMethod invocations_per_call=" + depth);
        System.out.flush();

        MooBench bench = new MooBench();
        long[] durations = new long[calls];
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            bench.sink += bench.monitoredMethod(methodTime, depth);
            durations[i] = System.nanoTime() - t0;
        }
        long total = System.nanoTime() - start;

        if (timingsFile != null) {
            Timings.write("MooBench", timingsFile, durations);
        }
        long[] secondHalf = java.util.Arrays.copyOfRange(durations, calls / 2, calls);
        System.out.println("moobench done calls=" + calls + " total_ns=" + total
                + " median_ns=" + Timings.median(durations)
                + " median_second_half_ns=" + Timings.median(secondHalf)
                + " sink=" + Long.toHexString(bench.sink));
    }
}
