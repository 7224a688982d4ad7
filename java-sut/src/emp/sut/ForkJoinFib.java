// SPDX-License-Identifier: Apache-2.0
// Fork/Join Fibonacci: a tiny recursive method, plain or spread over a ForkJoinPool.
package emp.sut;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Computes fib(n) by naive recursion, {@code --repeat} times, in one of three modes:
 * <ul>
 * <li>{@code plain}: {@link #fib(int)} on the main thread, a very small, very hot recursive method (the case a
 *     sampler must handle: millions of short frames, deep inlining by the JIT);</li>
 * <li>{@code fork}: one {@link RecursiveTask} per call, forking {@code n-1} and computing {@code n-2} in place,
 *     down to {@code --threshold}, below which {@link #fib(int)} runs sequentially;</li>
 * <li>{@code throttled}: like fork, but a task forks only while fewer than {@code --max-inflight} tasks are in
 *     flight (a shared {@link AtomicInteger}); otherwise it recurses sequentially.</li>
 * </ul>
 */
public final class ForkJoinFib {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.ForkJoinFib [options]",
            "Fibonacci by naive recursion, plain or on a ForkJoinPool.",
            "  --n N               argument of fib (default 30)",
            "  --mode M            plain | fork | throttled (default fork)",
            "  --parallelism P     ForkJoinPool size (default: available processors)",
            "  --threshold T       fork/throttled: below T compute sequentially with fib() (default 10)",
            "  --max-inflight K    throttled: fork only while fewer than K tasks are in flight (default 4*P)",
            "  --repeat R          computations, each timed (default 5)",
            "");

    private ForkJoinFib() {
    }

    /** The tiny recursive method. */
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    /** Reference value for the self-check. */
    static int fibIterative(int n) {
        int a = 0;
        int b = 1;
        for (int i = 0; i < n; i++) {
            int t = a + b;
            a = b;
            b = t;
        }
        return a;
    }

    /** fork mode: fork n-1, compute n-2 in this thread, join. */
    static final class ForkTask extends RecursiveTask<Integer> {
        private static final long serialVersionUID = 1L;
        private final int n;
        private final int threshold;

        ForkTask(int n, int threshold) {
            this.n = n;
            this.threshold = threshold;
        }

        @Override
        protected Integer compute() {
            if (n < threshold || n < 2) {
                return fib(n);
            }
            ForkTask left = new ForkTask(n - 1, threshold);
            left.fork();
            int right = new ForkTask(n - 2, threshold).compute();
            return left.join() + right;
        }
    }

    /** throttled mode: forks only while the shared in-flight counter is below the limit. */
    static final class ThrottledTask extends RecursiveTask<Integer> {
        private static final long serialVersionUID = 1L;
        private final int n;
        private final int threshold;
        private final int maxInflight;
        private final AtomicInteger inflight;

        ThrottledTask(int n, int threshold, int maxInflight, AtomicInteger inflight) {
            this.n = n;
            this.threshold = threshold;
            this.maxInflight = maxInflight;
            this.inflight = inflight;
        }

        @Override
        protected Integer compute() {
            return solve(n);
        }

        private int solve(int k) {
            if (k < threshold || k < 2) {
                return fib(k);
            }
            // Reserve a slot before forking; give it back when the forked task is joined.
            if (inflight.incrementAndGet() <= maxInflight) {
                ThrottledTask left = new ThrottledTask(k - 1, threshold, maxInflight, inflight);
                left.fork();
                int right = solve(k - 2);
                int l = left.join();
                inflight.decrementAndGet();
                return l + right;
            }
            inflight.decrementAndGet();
            return solve(k - 1) + solve(k - 2);
        }
    }

    public static void main(String[] argv) {
        Args a = Args.parse("ForkJoinFib", USAGE, argv,
                "n", "mode", "parallelism", "threshold", "max-inflight", "repeat");
        int n = a.intValue("n", 30, 0, 46); // fib(46) is the largest that fits an int
        String mode = a.choice("mode", "fork", "plain", "fork", "throttled");
        int parallelism = a.intValue("parallelism", Runtime.getRuntime().availableProcessors(), 1, 32767);
        int threshold = a.intValue("threshold", 10, 0, 46);
        int maxInflight = a.intValue("max-inflight", 4 * parallelism, 1, Integer.MAX_VALUE);
        int repeat = a.intValue("repeat", 5, 1, 1_000_000);

        System.out.println("forkjoinfib n=" + n + " mode=" + mode + " parallelism=" + parallelism
                + " threshold=" + threshold + " max_inflight=" + maxInflight + " repeat=" + repeat);
        System.out.flush();

        ForkJoinPool pool = mode.equals("plain") ? null : new ForkJoinPool(parallelism);
        long[] durations = new long[repeat];
        int[] results = new int[repeat];
        int result;
        for (int r = 0; r < repeat; r++) {
            long t0 = System.nanoTime();
            switch (mode) {
                case "plain":
                    result = fib(n);
                    break;
                case "fork":
                    result = pool.invoke(new ForkTask(n, threshold));
                    break;
                default:
                    result = pool.invoke(new ThrottledTask(n, threshold, maxInflight, new AtomicInteger()));
                    break;
            }
            durations[r] = System.nanoTime() - t0;
            results[r] = result;
        }
        if (pool != null) {
            pool.shutdown();
        }
        int expected = fibIterative(n);
        boolean ok = true;
        for (int r = 0; r < repeat; r++) {
            System.out.println("forkjoinfib repeat=" + r + " result=" + results[r] + " time_ns=" + durations[r]);
            ok &= results[r] == expected;
        }
        if (!ok) {
            System.err.println("ForkJoinFib: wrong result, expected fib(" + n + ")=" + expected);
            System.exit(1);
        }
        System.out.println("forkjoinfib done fib(" + n + ")=" + expected + " mode=" + mode + " repeat=" + repeat
                + " median_ns=" + Timings.median(durations));
    }
}
