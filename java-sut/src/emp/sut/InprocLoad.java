// SPDX-License-Identifier: Apache-2.0
// The "composite" arrangement of the SPECjbb2015 study: an open-loop load generator inside the server's own JVM.
package emp.sut;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The same schedule as emp-load: request i is due at t0 + i/RATE; a scheduler thread hands each request at its
 * due time to C client threads, one keep-alive connection each (HTTP/1.1 over a plain socket, no pipelining).
 * Latency is measured from the due time (corrected) and from the write (uncorrected), both with
 * {@link System#nanoTime()} in this JVM: while the JVM is paused for GC the scheduler issues nothing and the
 * clients time nothing, which is what this arrangement hides and emp-load, in its own process, does not.
 *
 * <p>Percentiles are exact (sorted values) with HdrHistogram's rank rule: the value at percentile p is the
 * smallest recorded value with at least ceil(p/100 · count) values at or below it.  Output: emp-load's CSV.
 */
final class InprocLoad {
    private final double rate;
    private final long durationNs;
    private final int connections;
    private final Mix mix;

    private long[] due;
    private long[] sent;
    private long[] done;
    private final AtomicLong errors = new AtomicLong();

    InprocLoad(double rate, long durationNs, int connections, Mix mix) {
        this.rate = rate;
        this.durationNs = durationNs;
        this.connections = connections;
        this.mix = mix;
    }

    /** Runs the schedule against 127.0.0.1:port; prints the figures when {@code report} (else a warm-up). */
    void run(int port, boolean report) throws InterruptedException {
        int n = (int) Math.min(Integer.MAX_VALUE - 8, Math.ceil(rate * durationNs / 1e9));
        due = new long[n];
        sent = new long[n];
        done = new long[n];
        String[] paths = new String[n];
        for (int i = 0; i < n; i++) {
            paths[i] = mix.next();
        }
        BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(Math.max(1, n));
        Thread[] clients = new Thread[connections];
        for (int c = 0; c < connections; c++) {
            clients[c] = new Thread(() -> client(port, queue, paths), "inproc-client-" + c);
            clients[c].setDaemon(true);
            clients[c].start();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long d = t0 + (long) (i * 1e9 / rate);
            long now;
            while ((now = System.nanoTime()) < d) {
                LockSupport.parkNanos(d - now);
            }
            due[i] = d;
            queue.add(i);
        }
        // Give the requests still in flight up to 10 s, as emp-load's default --timeout.
        long end = t0 + durationNs + 10_000_000_000L;
        for (int c = 0; c < connections; c++) {
            queue.add(-1);
        }
        for (Thread t : clients) {
            t.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
        }
        if (report) {
            report(n);
        }
    }

    private void client(int port, BlockingQueue<Integer> queue, String[] paths) {
        Socket s = null;
        byte[] buf = new byte[8192];
        try {
            while (true) {
                int i = queue.take();
                if (i < 0) {
                    return;
                }
                try {
                    if (s == null) {
                        s = new Socket(InetAddress.getLoopbackAddress(), port);
                        s.setTcpNoDelay(true);
                    }
                    byte[] req = ("GET " + paths[i] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII);
                    sent[i] = System.nanoTime();
                    OutputStream os = s.getOutputStream();
                    os.write(req);
                    os.flush();
                    readResponse(s.getInputStream(), buf);
                    done[i] = System.nanoTime();
                } catch (IOException e) {
                    errors.incrementAndGet();
                    if (s != null) {
                        try {
                            s.close();
                        } catch (IOException ignored) {
                            // already broken
                        }
                    }
                    s = null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads one response: headers up to CRLFCRLF, then Content-Length bytes of body. */
    private static void readResponse(InputStream in, byte[] buf) throws IOException {
        int len = 0;
        int headerEnd = -1;
        while (headerEnd < 0) {
            int r = in.read(buf, len, buf.length - len);
            if (r < 0) {
                throw new IOException("connection closed");
            }
            len += r;
            for (int k = 3; k < len; k++) {
                if (buf[k - 3] == '\r' && buf[k - 2] == '\n' && buf[k - 1] == '\r' && buf[k] == '\n') {
                    headerEnd = k + 1;
                    break;
                }
            }
            if (headerEnd < 0 && len == buf.length) {
                throw new IOException("header too long");
            }
        }
        String head = new String(buf, 0, headerEnd, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
        int p = head.indexOf("content-length:");
        if (p < 0) {
            throw new IOException("no content-length");
        }
        int e = head.indexOf('\r', p);
        long body = Long.parseLong(head.substring(p + 15, e).trim());
        long have = len - headerEnd;
        while (have < body) {
            int r = in.read(buf, 0, buf.length);
            if (r < 0) {
                throw new IOException("connection closed");
            }
            have += r;
        }
    }

    private void report(int n) {
        long[] corr = new long[n];
        long[] unc = new long[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (done[i] != 0) {
                corr[m] = (done[i] - due[i]) / 1000;
                unc[m] = (done[i] - sent[i]) / 1000;
                m++;
            }
        }
        System.out.println("measure,count,p50_us,p90_us,p99_us,p999_us,p9999_us,max_us");
        row("corrected", Arrays.copyOf(corr, m));
        row("uncorrected", Arrays.copyOf(unc, m));
        System.out.println("error,io," + errors.get());
        System.out.println("error,unfinished," + (n - m - errors.get()));
        System.out.println(String.format(Locale.ROOT,
                "server inproc done requests=%d completed=%d rate=%.3f connections=%d mix=%s", n, m, rate,
                connections, mix));
    }

    private static void row(String name, long[] v) {
        Arrays.sort(v);
        StringBuilder sb = new StringBuilder(name).append(',').append(v.length);
        for (double p : new double[] {50, 90, 99, 99.9, 99.99}) {
            sb.append(',').append(at(v, p));
        }
        sb.append(',').append(v.length == 0 ? 0 : v[v.length - 1]);
        System.out.println(sb);
    }

    private static long at(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * sorted.length));
        return sorted[(int) Math.min(sorted.length, rank) - 1];
    }
}
