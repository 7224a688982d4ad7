// SPDX-License-Identifier: Apache-2.0
// Fork/Join parallel quicksort with a self-check.
package emp.sut;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * Sorts {@code --size} pseudo-random ints (from {@code --seed}) with a Fork/Join quicksort, {@code --repeat} times
 * (fresh data each time), and checks the result: sorted, and the same multiset (sum and xor of the elements
 * unchanged).  A failed check prints one line on stderr and exits with status 1.
 */
public final class QuickSort {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.QuickSort [options]",
            "Fork/Join parallel quicksort; verifies the result (exit 1 if not sorted).",
            "  --size N          elements (default 2000000)",
            "  --parallelism P   ForkJoinPool size (default: available processors)",
            "  --seed S          seed of the input data (default 42)",
            "  --repeat R        sorts, each on fresh data and timed (default 3)",
            "  --cutoff C        partitions smaller than C are sorted sequentially (default 8192)",
            "");

    /** Below this many elements insertion sort beats partitioning. */
    private static final int INSERTION_LIMIT = 24;

    private QuickSort() {
    }

    static final class SortTask extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final int[] a;
        private final int lo;
        private final int hi; // inclusive
        private final int cutoff;

        SortTask(int[] a, int lo, int hi, int cutoff) {
            this.a = a;
            this.lo = lo;
            this.hi = hi;
            this.cutoff = cutoff;
        }

        @Override
        protected void compute() {
            if (hi - lo < cutoff) {
                sequentialSort(a, lo, hi);
                return;
            }
            int p = partition(a, lo, hi);
            invokeAll(new SortTask(a, lo, p, cutoff), new SortTask(a, p + 1, hi, cutoff));
        }
    }

    /** Sequential quicksort of a[lo..hi]; recurses into the smaller half, loops on the larger one. */
    static void sequentialSort(int[] a, int lo, int hi) {
        while (hi - lo >= INSERTION_LIMIT) {
            int p = partition(a, lo, hi);
            if (p - lo < hi - p) {
                sequentialSort(a, lo, p);
                lo = p + 1;
            } else {
                sequentialSort(a, p + 1, hi);
                hi = p;
            }
        }
        insertionSort(a, lo, hi);
    }

    static void insertionSort(int[] a, int lo, int hi) {
        for (int i = lo + 1; i <= hi; i++) {
            int x = a[i];
            int j = i - 1;
            while (j >= lo && a[j] > x) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = x;
        }
    }

    /**
     * Hoare partition around the median of a[lo], a[mid], a[hi].  Returns p with lo <= p < hi such that
     * every element of a[lo..p] is <= every element of a[p+1..hi].
     */
    static int partition(int[] a, int lo, int hi) {
        int mid = (lo + hi) >>> 1;
        int x = a[lo];
        int y = a[mid];
        int z = a[hi];
        int pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
        int i = lo - 1;
        int j = hi + 1;
        while (true) {
            do {
                i++;
            } while (a[i] < pivot);
            do {
                j--;
            } while (a[j] > pivot);
            if (i >= j) {
                return j;
            }
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    public static void main(String[] argv) {
        Args a = Args.parse("QuickSort", USAGE, argv, "size", "parallelism", "seed", "repeat", "cutoff");
        int size = a.intValue("size", 2_000_000, 0, Integer.MAX_VALUE - 8);
        int parallelism = a.intValue("parallelism", Runtime.getRuntime().availableProcessors(), 1, 32767);
        long seed = a.longValue("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE);
        int repeat = a.intValue("repeat", 3, 1, 1_000_000);
        int cutoff = a.intValue("cutoff", 8192, INSERTION_LIMIT, Integer.MAX_VALUE);

        System.out.println("quicksort size=" + size + " parallelism=" + parallelism + " seed=" + seed
                + " repeat=" + repeat + " cutoff=" + cutoff);
        System.out.flush();

        ForkJoinPool pool = new ForkJoinPool(parallelism);
        SplittableRandom rnd = new SplittableRandom(seed);
        long[] durations = new long[repeat];
        int[] data = new int[size];
        for (int r = 0; r < repeat; r++) {
            long sum = 0;
            int xor = 0;
            for (int i = 0; i < size; i++) {
                int v = rnd.nextInt();
                data[i] = v;
                sum += v;
                xor ^= v;
            }
            long t0 = System.nanoTime();
            if (size > 1) {
                pool.invoke(new SortTask(data, 0, size - 1, cutoff));
            }
            durations[r] = System.nanoTime() - t0;

            long sum2 = 0;
            int xor2 = 0;
            for (int i = 0; i < size; i++) {
                if (i > 0 && data[i - 1] > data[i]) {
                    System.err.println("QuickSort: NOT SORTED at index " + i + " (repeat " + r + ")");
                    System.exit(1);
                }
                sum2 += data[i];
                xor2 ^= data[i];
            }
            if (sum != sum2 || xor != xor2) {
                System.err.println("QuickSort: elements changed while sorting (repeat " + r + ")");
                System.exit(1);
            }
        }
        pool.shutdown();
        for (int r = 0; r < repeat; r++) {
            System.out.println("quicksort repeat=" + r + " sorted=true time_ns=" + durations[r]);
        }
        System.out.println("quicksort done size=" + size + " repeat=" + repeat + " sorted=true median_ns="
                + Timings.median(durations));
    }
}
