/* SPDX-License-Identifier: MIT */
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The workload of tests/integration/trace_broad.sh: a deterministic program that runs a wide slice of the JDK
 * (string concatenation and lambdas through invokedynamic, streams, collections, exceptions thrown inside the JDK
 * and caught, reflection, method handles, threads, an executor, the common ForkJoin pool, zip, a class of the
 * java.sql module loaded long after start-up, an uncaught exception in a thread) and prints what it computed on
 * stdout and stderr, then exits with status 3.  Run with and without the agent, every byte and the status must
 * be the same, whatever the include pattern.
 */
public final class Broad {
	record Point(int x, int y) {
		int dist() {
			return Math.abs(x) + Math.abs(y);
		}
	}

	enum Color { RED, GREEN, BLUE }

	private static int counter;

	private static synchronized void bump() {
		counter++;
	}

	static int depth(int n) {
		if (n == 0)
			throw new IllegalStateException("bottom");
		try {
			return depth(n - 1);
		} finally {
			bump();
		}
	}

	public static int twice(int v) {
		return 2 * v;
	}

	public static void main(String[] args) throws Throwable {
		StringBuilder out = new StringBuilder();
		out.append("concat ").append("a" + counter + 'b' + 1.5 + true).append('\n');
		out.append(String.format("format %05d %.3f %s%n", 42, Math.PI, List.of(1, 2, 3)));

		List<Point> pts = new ArrayList<>();
		for (int i = 0; i < 50; i++)
			pts.add(new Point((i * 37) % 23 - 11, (i * 11) % 17 - 8));
		pts.sort(Comparator.comparingInt(Point::dist).thenComparingInt(Point::x).thenComparingInt(Point::y));
		out.append("sorted ").append(pts.subList(0, 4)).append('\n');
		Map<Integer, Long> byDist = pts.stream().collect(Collectors.groupingBy(Point::dist, TreeMap::new,
										  Collectors.counting()));
		out.append("grouped ").append(byDist).append('\n');
		out.append("sum ").append(IntStream.rangeClosed(1, 1000).filter(i -> i % 3 == 0).sum()).append('\n');

		for (Color c : Color.values()) {
			switch (c) {
			case RED -> out.append("r");
			case GREEN -> out.append("g");
			default -> out.append("b");
			}
		}
		out.append('\n');

		try {
			depth(20);
		} catch (IllegalStateException e) {
			out.append("caught ").append(e.getMessage()).append(" after ").append(counter).append('\n');
		}
		try {
			Integer.parseInt("x12");
		} catch (NumberFormatException e) {
			out.append("parse ").append(e.getMessage()).append('\n');
		}
		try {
			Object o = List.of(1).get(3);
			out.append(o);
		} catch (IndexOutOfBoundsException e) {
			out.append("index ").append(e.getClass().getName()).append('\n');
		}

		Method m = Broad.class.getMethod("twice", int.class);
		out.append("reflect ").append(m.invoke(null, 21)).append('\n');
		MethodHandle mh = MethodHandles.lookup().findStatic(Broad.class, "twice",
								    MethodType.methodType(int.class, int.class));
		out.append("handle ").append((int) mh.invokeExact(8)).append('\n');

		long[] parts = new long[4];
		Thread[] ts = new Thread[4];
		for (int t = 0; t < ts.length; t++) {
			final int k = t;
			ts[t] = new Thread(() -> {
				long s = 0;
				for (int i = 0; i < 20000; i++)
					s += Integer.toString(i * k).hashCode();
				parts[k] = s;
			}, "worker-" + t);
			ts[t].start();
		}
		for (Thread t : ts)
			t.join();
		out.append("threads ").append(java.util.Arrays.toString(parts)).append('\n');

		ExecutorService pool = Executors.newFixedThreadPool(2);
		List<Future<Integer>> fs = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			final int k = i;
			fs.add(pool.submit(() -> k * k));
		}
		int total = 0;
		for (Future<Integer> f : fs)
			total += f.get();
		pool.shutdown();
		out.append("pool ").append(total).append('\n');
		out.append("forkjoin ").append(IntStream.range(0, 100000).parallel().mapToLong(i -> i % 7).sum()).append('\n');
		out.append("future ").append(CompletableFuture.supplyAsync(() -> "cf").thenApply(s -> s + "!").get())
			.append('\n');

		byte[] text = "the quick brown fox jumps over the lazy dog ".repeat(200).getBytes(StandardCharsets.UTF_8);
		CRC32 crc = new CRC32();
		crc.update(text);
		Deflater def = new Deflater();
		def.setInput(text);
		def.finish();
		byte[] buf = new byte[text.length];
		int clen = def.deflate(buf);
		def.end();
		Inflater inf = new Inflater();
		inf.setInput(buf, 0, clen);
		byte[] back = new byte[text.length];
		int blen = inf.inflate(back);
		inf.end();
		out.append("zip crc=").append(Long.toHexString(crc.getValue())).append(" compressed=").append(clen)
			.append(" roundtrip=").append(blen == text.length && java.util.Arrays.equals(back, text)).append('\n');

		out.append("sql ").append(new Timestamp(86_400_000L).toInstant()).append('\n');
		System.out.print(out);
		System.err.println("stderr line " + out.length());

		Thread bad = new Thread(() -> {
			throw new UnsupportedOperationException("uncaught in a thread");
		}, "bad");
		bad.start();
		bad.join();
		System.out.flush();
		System.exit(3);
	}
}
