// SPDX-License-Identifier: Apache-2.0
// The ICPE'26 synthetic system under test: a binary call tree of distinct methods with two working leaves.
package emp.sut;

import java.util.Locale;

/**
 * The synthetic call tree of the ICPE'26 sampling-vs-instrumentation study (design.md section 5).
 *
 * <p>One iteration is exactly one call of {@link #runIteration()}.  It calls {@code emp.sut.tree.D<d>.root()}, a
 * full binary tree of distinct static methods generated at build time by java-sut/gen/gen-calltree.sh: the root,
 * {@code d} decision levels ({@code node_<k>_<i>}) and a task level ({@code leaf_<i>}).  Every method calls both of
 * its children, so each tree method runs exactly once per iteration.  Only two leaves work:
 * {@code leaf_0} (the slow leaf) calls {@link #task(long)} {@link #slowReps} times and {@code leaf_1} (the
 * unchanged leaf) calls it {@link #unchangedReps} times, where
 * <pre>
 *   unchangedReps = Math.round(m / 2.0)
 *   slowReps      = Math.round(m / 2.0 * (1 + 2 * delta))       (IEEE double, Math.round = floor(x + 0.5))
 * </pre>
 * so that with delta = 0 both leaves do m/2 tasks, and a change of delta slows the whole iteration by about
 * delta (the slow leaf carries half the work and grows by 2 * delta).  See java-sut/README.md for call counts.
 */
public final class CallTree {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.CallTree [options]",
            "ICPE'26 synthetic SUT: binary call tree of distinct methods; two leaves run a CPU task.",
            "  --depth D         decision levels, " + minDepth() + ".." + maxDepth() + " (default 2)",
            "  --leaf-calls M    task calls per iteration without change, split over the two leaves (default 300)",
            "  --delta X         relative change: the slow leaf runs round(M/2*(1+2X)) tasks (default 0)",
            "  --task-size N     xorshift steps in one task call (default 1000)",
            "  --warmup N        warm-up iterations, not timed (default 1000)",
            "  --iterations N    measured iterations (default 1000)",
            "  --timings FILE    write CSV 'iteration,duration_ns', one row per measured iteration",
            "Each iteration is one call of emp.sut.CallTree.runIteration().",
            "");

    // Read by the generated tree classes in emp.sut.tree; set once from the options before the first iteration.
    // They are deliberately not final: the JIT must treat the loop counts and the seed as unknown at run time.
    /** Task calls made by the slow leaf {@code leaf_0} per iteration. */
    public static int slowReps;
    /** Task calls made by the unchanged leaf {@code leaf_1} per iteration. */
    public static int unchangedReps;
    /** Start value of each leaf's accumulator (non-zero: xorshift maps 0 to 0). */
    public static long seed = 0x9E3779B97F4A7C15L;
    /**
     * Blackhole: every working leaf adds its result here (read-modify-write, see the generator), and main prints
     * it at the end, so the JIT cannot eliminate the task loops as dead code.
     */
    public static long sink;

    private static int taskSize;
    private static int depth;

    private CallTree() {
    }

    static int minDepth() {
        return 2;
    }

    static int maxDepth() {
        return 10;
    }

    /**
     * The CPU task: {@link #taskSize} steps of a 64-bit xorshift generator.  Each step depends on the previous
     * one, so the loop can be neither vectorised nor folded; the result is consumed by the calling leaf.
     */
    public static long task(long x) {
        for (int i = taskSize; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** One iteration of the benchmark: one call of the selected tree's root. */
    public static void runIteration() {
        // A direct call per depth (no reflection, no MethodHandle) keeps the stack exactly
        // runIteration -> root -> node_1_* -> ... -> leaf_* -> task.
        switch (depth) {
            case 2: emp.sut.tree.D2.root(); break;
            case 3: emp.sut.tree.D3.root(); break;
            case 4: emp.sut.tree.D4.root(); break;
            case 5: emp.sut.tree.D5.root(); break;
            case 6: emp.sut.tree.D6.root(); break;
            case 7: emp.sut.tree.D7.root(); break;
            case 8: emp.sut.tree.D8.root(); break;
            case 9: emp.sut.tree.D9.root(); break;
            case 10: emp.sut.tree.D10.root(); break;
            default: throw new IllegalStateException("depth " + depth);
        }
    }

    public static void main(String[] argv) {
        Args a = Args.parse("CallTree", USAGE, argv,
                "depth", "leaf-calls", "delta", "task-size", "warmup", "iterations", "timings");
        depth = a.intValue("depth", 2, minDepth(), maxDepth());
        int m = a.intValue("leaf-calls", 300, 0, 100_000_000);
        double delta = a.doubleValue("delta", 0.0, -0.5, 100.0);
        taskSize = a.intValue("task-size", 1000, 0, Integer.MAX_VALUE);
        int warmup = a.intValue("warmup", 1000, 0, Integer.MAX_VALUE);
        int iterations = a.intValue("iterations", 1000, 1, 100_000_000);
        String timingsFile = a.string("timings", null);

        unchangedReps = (int) Math.round(m / 2.0);
        slowReps = (int) Math.round(m / 2.0 * (1.0 + 2.0 * delta));
        String tree = "emp.sut.tree.D" + depth;
        System.out.println(String.format(Locale.ROOT,
                "calltree depth=%d leaf_calls=%d delta=%s task_size=%d warmup=%d iterations=%d"
                        + " run=emp.sut.CallTree.runIteration slow_leaf=%s.leaf_0 slow_reps=%d"
                        + " unchanged_leaf=%s.leaf_1 unchanged_reps=%d tree_methods=%d",
                depth, m, Double.toString(delta), taskSize, warmup, iterations, tree, slowReps, tree, unchangedReps,
                (1 << (depth + 2)) - 1));
        System.out.flush();

        for (int i = 0; i < warmup; i++) {
            runIteration();
        }
        long[] durations = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long t0 = System.nanoTime();
            runIteration();
            durations[i] = System.nanoTime() - t0;
        }

        if (timingsFile != null) {
            Timings.write("CallTree", timingsFile, durations);
        }
        System.out.println("calltree done iterations=" + iterations + " median_ns=" + Timings.median(durations)
                + " sink=" + Long.toHexString(sink));
    }
}
