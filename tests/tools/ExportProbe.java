/* SPDX-License-Identifier: MIT */
/*
 * ExportProbe - a small traced program for tests/tools/check-exports.sh with the cases a plain call tree lacks:
 * constructors and a class initialiser, overloads with array and object parameters, exceptional exits, several
 * threads, a daemon thread that never leaves its traced method, and System.exit() from inside traced calls (so
 * the dump ends with calls still open).  Trace it with include=empcheck.*.
 *
 * Usage: java empcheck.ExportProbe THREADS ITERATIONS      (prints nothing; exits with status 0 from deeper())
 *
 * Exact calls, with T = THREADS and N = ITERATIONS:
 *   <clinit> 1; main 1; exitInside 1; deeper 1 (the last three still open at the end)
 *   Parker.<init> 1; Parker.run 1; park 1 (the last two still open at the end)
 *   Worker.<init> T; Worker.run T; worker T
 *   ExportProbe.<init> T*N; work(int) 4*T*N (work(3) recurses to work(0)); work(long[], String) T*N
 *   guarded T*N; fail 3*T*N (fail(2) -> fail(1) -> fail(0) throws; all three exit by the exception)
 * Traces (roots): <clinit>, main, Parker.run, and one Worker.run per worker thread = 3 + T.
 */
package empcheck;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public final class ExportProbe {
	private static final CountDownLatch PARKED = new CountDownLatch(1);
	private static volatile long sink;

	private final int value;

	private ExportProbe(final int value) {
		this.value = value;
	}

	static int work(final int n) {
		return n <= 0 ? 0 : 1 + work(n - 1);
	}

	static long work(final long[] a, final String s) {
		long x = s.length();
		for (final long v : a) {
			x += v;
		}
		return x;
	}

	static int fail(final int n) {
		if (n == 0) {
			throw new IllegalStateException("expected");
		}
		return fail(n - 1);
	}

	static int guarded(final int n) {
		try {
			return fail(n);
		} catch (final IllegalStateException e) {
			return -1;
		}
	}

	static void park() {
		PARKED.countDown();
		for (;;) {
			LockSupport.park();
		}
	}

	static void worker(final int iterations) {
		long s = 0;
		for (int i = 0; i < iterations; i++) {
			s += new ExportProbe(i).value + work(3) + guarded(2) + work(new long[] { i, 2 * i }, "probe");
		}
		sink += s;
	}

	static void deeper() {
		System.exit(0);
	}

	static void exitInside() {
		deeper();
	}

	static final class Parker implements Runnable {
		@Override
		public void run() {
			park();
		}
	}

	static final class Worker implements Runnable {
		private final int iterations;

		Worker(final int iterations) {
			this.iterations = iterations;
		}

		@Override
		public void run() {
			worker(this.iterations);
		}
	}

	public static void main(final String[] args) throws InterruptedException {
		final int threads = Integer.parseInt(args[0]);
		final int iterations = Integer.parseInt(args[1]);
		final Thread parker = new Thread(new Parker(), "parker");
		parker.setDaemon(true);
		parker.start();
		PARKED.await();
		final Thread[] t = new Thread[threads];
		for (int i = 0; i < threads; i++) {
			t[i] = new Thread(new Worker(iterations), "worker-" + i);
			t[i].start();
		}
		for (final Thread w : t) {
			w.join();
		}
		exitInside();
	}
}
