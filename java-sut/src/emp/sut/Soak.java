// SPDX-License-Identifier: Apache-2.0
// A hostile, varied workload for soak tests of the agent: GC, class loading and unloading, exceptions,
// thread churn, deep and shallow stacks, JDK native code.
package emp.sut;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Runs {@code --threads} worker threads plus one thread-churning thread for {@code --seconds}.  Each worker
 * repeatedly picks one activity at random:
 * <ul>
 * <li>allocation: short-lived garbage plus a bounded retained ring (old-generation churn, {@code --retain-mb});</li>
 * <li>class loading: defines {@link Payload} again from its class-file bytes in a fresh {@link ClassLoader}
 *     (a new class each time, unloadable once the loader is garbage) and calls it through {@link Work};</li>
 * <li>proxies: a {@link Proxy} class in a fresh loader (another source of new classes);</li>
 * <li>exceptions: thrown at the bottom of a recursion and caught several frames up, sometimes re-thrown;</li>
 * <li>deep stacks: recursion 500..3000 frames deep ending in CRC32 (native code at a deep stack);</li>
 * <li>native: Deflater over a buffer, CRC32 (shallow stacks in JDK native code);</li>
 * <li>parking: short LockSupport.parkNanos (off-CPU time for wall-clock samplers).</li>
 * </ul>
 * The churn thread starts short-lived threads (some with deep stacks, some throwing) and joins them.
 * At the end one summary line is printed.  Any unexpected failure exits with status 1.
 */
public final class Soak {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Soak [options]",
            "GC-heavy, class-loading, exception-throwing, thread-churning workload (for agent soak tests).",
            "  --seconds S       run time in seconds (default 10)",
            "  --threads N       worker threads (default 4)",
            "  --retain-mb M     size of the retained allocation ring, MB (default 32)",
            "  --seed S          seed (default 3)",
            "");

    /** Implemented by the per-loader copies of {@link Payload} and by the proxies; loaded once, by the app loader. */
    public interface Work {
        long run(long x);
    }

    /**
     * Re-defined in a fresh loader for every use.  Its run method does a little work and throws every 7th time,
     * so exceptions cross frames of classes that will later be unloaded.
     */
    public static final class Payload implements Work {
        private int calls;

        @Override
        public long run(long x) {
            if (++calls % 7 == 0) {
                throw new IllegalStateException("payload " + x);
            }
            long h = x;
            for (int i = 0; i < 1000; i++) {
                h = h * 0x9E3779B97F4A7C15L + i;
            }
            return h;
        }
    }

    /** Defines Payload from bytes (child-first for that one name), delegating everything else to its parent. */
    static final class BytesLoader extends ClassLoader {
        private final byte[] bytes;

        BytesLoader(ClassLoader parent, byte[] bytes) {
            super(parent);
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(PAYLOAD_NAME)) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        c = defineClass(name, bytes, 0, bytes.length);
                    }
                    return c;
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    static final class SoakException extends Exception {
        private static final long serialVersionUID = 1L;

        SoakException(String msg, Throwable cause) {
            super(msg, cause);
        }
    }

    static final String PAYLOAD_NAME = Payload.class.getName();
    static byte[] payloadBytes;

    static final AtomicLong threadsStarted = new AtomicLong();
    static final AtomicLong classesDefined = new AtomicLong();
    static final AtomicLong proxies = new AtomicLong();
    static final AtomicLong exceptions = new AtomicLong();
    static final AtomicLong allocatedBytes = new AtomicLong();
    static final AtomicLong deflatedBytes = new AtomicLong();
    static final AtomicLong deepCalls = new AtomicLong();
    static final AtomicLong parks = new AtomicLong();
    /** Blackhole for results; printed at the end. */
    static final AtomicLong sink = new AtomicLong();

    private Soak() {
    }

    static byte[] readPayloadBytes() throws IOException {
        String res = "/" + PAYLOAD_NAME.replace('.', '/') + ".class";
        try (InputStream in = Soak.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IOException("resource " + res + " not found");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) > 0;) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        }
    }

    // ---- activities -----------------------------------------------------------------------------------------

    static long allocate(SplittableRandom rnd, byte[][] ring, int[] ringPos) {
        long bytes = 0;
        List<Object> garbage = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            int n = 16 + rnd.nextInt(2048);
            garbage.add(new byte[n]);
            garbage.add(Integer.toString(i));
            bytes += n + 32;
        }
        // Replace one slot of the retained ring: these survive long enough to be promoted, then die.
        byte[] keep = new byte[64 * 1024];
        keep[rnd.nextInt(keep.length)] = 1;
        ring[ringPos[0]] = keep;
        ringPos[0] = (ringPos[0] + 1) % ring.length;
        bytes += keep.length;
        allocatedBytes.addAndGet(bytes);
        return garbage.size();
    }

    static long loadClassAndRun(long x) throws Exception {
        BytesLoader loader = new BytesLoader(Soak.class.getClassLoader(), payloadBytes);
        Class<?> c = Class.forName(PAYLOAD_NAME, true, loader);
        classesDefined.incrementAndGet();
        Work w = (Work) c.getDeclaredConstructor().newInstance();
        long acc = 0;
        for (int i = 0; i < 10; i++) {
            try {
                acc += w.run(x + i);
            } catch (IllegalStateException e) {
                exceptions.incrementAndGet();
            }
        }
        return acc;
    }

    static long proxy(long x) {
        ClassLoader loader = new ClassLoader(Soak.class.getClassLoader()) { };
        InvocationHandler h = (p, m, args) -> ((Long) args[0]) * 31 + m.getName().length();
        Work w = (Work) Proxy.newProxyInstance(loader, new Class<?>[] {Work.class}, h);
        proxies.incrementAndGet();
        return w.run(x);
    }

    static long throwDeep(int depth, long x) throws SoakException {
        if (depth == 0) {
            throw new SoakException("bottom " + x, null);
        }
        if (depth % 5 == 0) {
            try {
                return throwDeep(depth - 1, x + 1) + 1;
            } catch (SoakException e) {
                exceptions.incrementAndGet();
                throw new SoakException("rethrown at " + depth, e); // exceptional exit through this frame too
            }
        }
        return throwDeep(depth - 1, x + 1) + 1;
    }

    static long exceptionsActivity(SplittableRandom rnd) {
        long acc = 0;
        for (int i = 0; i < 20; i++) {
            try {
                acc += throwDeep(1 + rnd.nextInt(30), i);
            } catch (SoakException e) {
                exceptions.incrementAndGet();
                acc += e.getMessage().length();
            }
            try {
                Object o = (i & 1) == 0 ? "s" : null;
                acc += o.hashCode(); // implicit NullPointerException every other time
            } catch (NullPointerException e) {
                exceptions.incrementAndGet();
            }
        }
        return acc;
    }

    static long deep(int depth, byte[] buf) {
        deepCalls.incrementAndGet();
        if (depth == 0) {
            CRC32 crc = new CRC32();
            crc.update(buf, 0, buf.length);
            return crc.getValue();
        }
        return deep(depth - 1, buf) + depth;
    }

    static long nativeActivity(byte[] data, byte[] out) {
        Deflater d = new Deflater(1);
        try {
            d.setInput(data);
            d.finish();
            long n = 0;
            while (!d.finished()) {
                n += d.deflate(out, 0, out.length);
            }
            deflatedBytes.addAndGet(data.length);
            CRC32 crc = new CRC32();
            crc.update(out, 0, (int) Math.min(n, out.length));
            return crc.getValue() + n;
        } finally {
            d.end();
        }
    }

    // ---- threads ----------------------------------------------------------------------------------------------

    static void worker(long seed, long deadline, int retainMb, int workers) {
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[][] ring = new byte[Math.max(1, retainMb * 16 / workers)][]; // 64 KB slots
        int[] ringPos = {0};
        byte[] data = Zip.makeData(64 * 1024, seed);
        byte[] out = new byte[data.length + 1024];
        long acc = 0;
        try {
            while (System.nanoTime() < deadline) {
                switch (rnd.nextInt(8)) {
                    case 0:
                    case 1:
                        acc += allocate(rnd, ring, ringPos);
                        break;
                    case 2:
                        acc += loadClassAndRun(acc);
                        break;
                    case 3:
                        acc += proxy(acc);
                        break;
                    case 4:
                        acc += exceptionsActivity(rnd);
                        break;
                    case 5:
                        acc += deep(500 + rnd.nextInt(2500), data);
                        break;
                    case 6:
                        acc += nativeActivity(data, out);
                        break;
                    default:
                        LockSupport.parkNanos(100_000 + rnd.nextInt(900_000));
                        parks.incrementAndGet();
                        break;
                }
            }
        } catch (Exception e) {
            fatal(e);
        }
        sink.addAndGet(acc);
    }

    static void churn(long seed, long deadline) {
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] data = Zip.makeData(4096, seed);
        List<Thread> batch = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 4; i++) {
                final int kind = rnd.nextInt(3);
                final long s = rnd.nextLong();
                Thread t = new Thread(() -> {
                    if (kind == 0) {
                        sink.addAndGet(deep(200 + (int) (s & 1023), data));
                    } else if (kind == 1) {
                        sink.addAndGet(exceptionsActivity(new SplittableRandom(s)));
                    } else {
                        sink.addAndGet(Long.bitCount(s));
                    }
                }, "soak-churn-" + threadsStarted.get());
                t.start();
                threadsStarted.incrementAndGet();
                batch.add(t);
            }
            for (Thread t : batch) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            batch.clear();
        }
    }

    static void fatal(Throwable e) {
        System.err.println("Soak: unexpected failure: " + e);
        e.printStackTrace();
        System.exit(1);
    }

    public static void main(String[] argv) throws Exception {
        Args a = Args.parse("Soak", USAGE, argv, "seconds", "threads", "retain-mb", "seed");
        double seconds = a.doubleValue("seconds", 10.0, 0.0, 1e7);
        int threads = a.intValue("threads", 4, 1, 1024);
        int retainMb = a.intValue("retain-mb", 32, 0, 1 << 20);
        long seed = a.longValue("seed", 3, Long.MIN_VALUE, Long.MAX_VALUE);

        payloadBytes = readPayloadBytes();
        System.out.println("soak seconds=" + seconds + " threads=" + threads + " retain_mb=" + retainMb
                + " seed=" + seed);
        System.out.flush();

        long t0 = System.nanoTime();
        long deadline = t0 + (long) (seconds * 1e9);
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            final long s = seed * 1_000_003L + i;
            all.add(new Thread(() -> worker(s, deadline, retainMb, threads), "soak-worker-" + i));
        }
        all.add(new Thread(() -> churn(seed ^ 0x5DEECE66DL, deadline), "soak-churn"));
        for (Thread t : all) {
            t.setUncaughtExceptionHandler((th, e) -> fatal(e));
            t.start();
        }
        for (Thread t : all) {
            t.join();
        }
        long wall = System.nanoTime() - t0;
        System.out.println("soak done wall_ns=" + wall + " threads_started=" + threadsStarted.get()
                + " classes_defined=" + classesDefined.get() + " proxies=" + proxies.get()
                + " exceptions=" + exceptions.get() + " allocated_mb=" + allocatedBytes.get() / (1 << 20)
                + " deflated_mb=" + deflatedBytes.get() / (1 << 20) + " deep_calls=" + deepCalls.get()
                + " parks=" + parks.get() + " sink=" + Long.toHexString(sink.get()));
    }
}
