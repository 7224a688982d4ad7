// SPDX-License-Identifier: Apache-2.0
// Short-lived threads: ground truth for sampling threads whose CPU time is below one sampling interval.
package emp.sut;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs {@code --rounds} rounds; each round starts {@code --threads} new threads that each burn about
 * {@code --burn-us} microseconds of CPU in {@link #work} and end.  Shape {@code spawn}: the main thread starts
 * the threads of a round ({@code churn-R-I}) and joins them; shape {@code pool}: a new fixed thread pool per
 * round (a thread-pool-per-request server), {@code --threads} tasks submitted to it, then shut down and awaited
 * (threads {@code churn-pool-R-I}).  Every call of {@code work} — the workers', and the calibration on main that
 * also warms it up — is measured with {@link ThreadMXBean#getCurrentThreadCpuTime()}; the program prints its own
 * truth at the end:
 * <pre>
 *   worker_cpu_ns 4512345678        CPU time inside emp.sut.Churn.work, all threads
 *   process_cpu_ns 6012345678       CPU time of the whole process (user + sys) from its start to now
 *   share work 0.750512             worker_cpu_ns / process_cpu_ns
 *   process_user_ns 5012345678      user CPU time of the process (/proc/self/stat utime, 10 ms resolution)
 *   share_user work 0.900123        worker_cpu_ns / process_user_ns (work makes no system calls: its CPU time
 *                                   is user time); the truth for a profiler that sees user time only
 *   threads_started 15000           worker threads started (and ended)
 * </pre>
 * Starting and ending a thread costs kernel time (clone, stacks, exit) on the starting and the ending thread: a
 * profiler that counts user and system time (POSIX CPU timers, setitimer) is to be compared with {@code share},
 * one that sees user time only (perf_event with exclude_kernel, as unprivileged processes must) with
 * {@code share_user}.
 */
public final class Churn {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Churn [options]",
            "Starts rounds of short-lived threads that each burn a fixed CPU amount in emp.sut.Churn.work.",
            "  --rounds R        rounds (default 300)",
            "  --threads N       threads per round (default 50)",
            "  --burn-us U       CPU microseconds each thread burns in work (default 300)",
            "  --shape S         spawn (new threads, joined) or pool (a new fixed pool per round; default spawn)",
            "  --timings FILE    CSV iteration,duration_ns, one row per round",
            "output: worker_cpu_ns, process_cpu_ns, share work, threads_started, then the summary line",
            "");

    private static final AtomicLong WORKER_CPU = new AtomicLong();
    private static final AtomicLong SINK = new AtomicLong();
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    private Churn() {
    }

    /** The ground-truth method: xorshift steps, the leaf frame a sampler sees. */
    static long work(long x, long steps) {
        for (long i = steps; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** One measured call of {@link #work} on the current thread. */
    private static void burn(long steps) {
        long c0 = MX.getCurrentThreadCpuTime();
        long x = work(Thread.currentThread().getId() | 1, steps);
        WORKER_CPU.addAndGet(MX.getCurrentThreadCpuTime() - c0);
        SINK.addAndGet(x);
    }

    /** CPU time of the whole process (user + sys), or -1 when this JVM cannot tell. */
    private static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /** User CPU time of the whole process from /proc/self/stat (utime, in clock ticks of 10 ms), or -1. */
    private static long processUserNs() {
        try {
            String stat = new String(Files.readAllBytes(Paths.get("/proc/self/stat")), StandardCharsets.US_ASCII);
            // Fields after the command name (which may contain spaces) start after its closing parenthesis;
            // utime is field 14 of the line, the 12th after it.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(f[11]) * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        Args a = Args.parse("Churn", USAGE, argv, "rounds", "threads", "burn-us", "shape", "timings");
        int rounds = a.intValue("rounds", 300, 1, 1_000_000);
        int threads = a.intValue("threads", 50, 1, 10_000);
        long burnUs = a.longValue("burn-us", 300, 1, 10_000_000);
        String shape = a.choice("shape", "spawn", "spawn", "pool");
        String timingsFile = a.string("timings", null);
        if (!MX.isCurrentThreadCpuTimeSupported() || processCpuNs() < 0) {
            System.err.println("Churn: thread or process CPU time is not supported by this JVM");
            System.exit(1);
        }
        if (!MX.isThreadCpuTimeEnabled()) {
            MX.setThreadCpuTimeEnabled(true);
        }

        // Calibrate the steps per microsecond on main (this also compiles work; measured like the workers).
        long stepsPerUs = 100;
        for (int i = 0; i < 5; i++) {
            long c0 = MX.getCurrentThreadCpuTime();
            burn(stepsPerUs * 10_000);
            long us = Math.max(1, (MX.getCurrentThreadCpuTime() - c0) / 1000);
            stepsPerUs = Math.max(1, stepsPerUs * 10_000 / us);
        }
        final long steps = stepsPerUs * burnUs;
        System.out.println("churn rounds=" + rounds + " threads=" + threads + " burn_us=" + burnUs + " shape=" + shape
                + " steps=" + steps + " method=emp.sut.Churn.work");
        System.out.flush();

        long[] durations = new long[rounds];
        AtomicInteger started = new AtomicInteger();
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            final int round = r;
            if (shape.equals("spawn")) {
                Thread[] ts = new Thread[threads];
                for (int i = 0; i < threads; i++) {
                    ts[i] = new Thread(() -> burn(steps), "churn-" + round + "-" + i);
                    ts[i].start();
                    started.incrementAndGet();
                }
                for (Thread t : ts) {
                    t.join();
                }
            } else {
                AtomicInteger n = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(threads, task -> {
                    started.incrementAndGet();
                    return new Thread(task, "churn-pool-" + round + "-" + n.getAndIncrement());
                });
                for (int i = 0; i < threads; i++) {
                    pool.execute(() -> burn(steps));
                }
                pool.shutdown();
                if (!pool.awaitTermination(1, TimeUnit.HOURS)) {
                    System.err.println("Churn: round " + r + " did not finish within an hour");
                    System.exit(1);
                }
            }
            durations[r] = System.nanoTime() - t0;
        }

        long workerCpu = WORKER_CPU.get();
        long processCpu = processCpuNs();
        long processUser = processUserNs();
        if (timingsFile != null) {
            Timings.write("Churn", timingsFile, durations);
        }
        System.out.println("worker_cpu_ns " + workerCpu);
        System.out.println("process_cpu_ns " + processCpu);
        System.out.println(String.format(Locale.ROOT, "share work %.6f", workerCpu / (double) Math.max(1, processCpu)));
        System.out.println("process_user_ns " + processUser);
        System.out.println(String.format(Locale.ROOT, "share_user work %.6f",
                workerCpu / (double) Math.max(1, processUser)));
        System.out.println("threads_started " + started.get());
        System.out.println("churn done sink=" + Long.toHexString(SINK.get()));
    }
}
