// SPDX-License-Identifier: Apache-2.0
// What a program can see of the threads in its JVM: an agent's own threads must not show in any of these views.
package emp.sut;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

/**
 * Starts two threads of its own, then prints every view of the threads a Java program has:
 * <pre>
 *   activeCount 3                       Thread.activeCount() in main's group
 *   enumerate main,views-1,views-2      Thread.enumerate(), names sorted
 *   allStackTraces ...                  Thread.getAllStackTraces() keys, names sorted
 *   mx.threadCount 9                    ThreadMXBean live / peak / daemon / total started counts
 *   mx.ids 1:main,...                   ThreadMXBean.getAllThreadIds() with each id's thread name, sorted by id
 *   own.ids 13,14                       Thread.getId() of the two threads it started
 * </pre>
 * With {@code --wait FILE} it then prints {@code ready} and waits until FILE exists (for {@code jcmd PID
 * Thread.print} from outside) before it ends its threads.  A run with an agent must print the same as a run without.
 */
public final class ThreadViews {
    private ThreadViews() {
    }

    public static void main(String[] args) throws Exception {
        String wait = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--wait") && i + 1 < args.length) {
                wait = args[++i];
            } else {
                System.err.println("usage: java -cp java-sut.jar emp.sut.ThreadViews [--wait FILE]");
                System.exit(2);
            }
        }
        CountDownLatch started = new CountDownLatch(2), end = new CountDownLatch(1);
        List<Thread> own = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    end.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "views-" + i);
            t.start();
            own.add(t);
        }
        started.await();

        System.out.println("activeCount " + Thread.activeCount());
        Thread[] arr = new Thread[64];
        int n = Thread.enumerate(arr);
        TreeSet<String> names = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            names.add(arr[i].getName());
        }
        System.out.println("enumerate " + String.join(",", names));
        names.clear();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            names.add(t.getName());
        }
        System.out.println("allStackTraces " + String.join(",", names));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        System.out.println("mx.threadCount " + mx.getThreadCount());
        System.out.println("mx.peakThreadCount " + mx.getPeakThreadCount());
        System.out.println("mx.daemonThreadCount " + mx.getDaemonThreadCount());
        System.out.println("mx.totalStartedThreadCount " + mx.getTotalStartedThreadCount());
        long[] ids = mx.getAllThreadIds();
        java.util.Arrays.sort(ids);
        StringBuilder sb = new StringBuilder();
        for (long id : ids) {
            java.lang.management.ThreadInfo ti = mx.getThreadInfo(id);
            sb.append(sb.length() == 0 ? "" : ",").append(id).append(':').append(ti == null ? "?" : ti.getThreadName());
        }
        System.out.println("mx.ids " + sb);
        System.out.println("own.ids " + own.get(0).getId() + "," + own.get(1).getId());
        if (wait != null) {
            System.out.println("ready");
            System.out.flush();
            Path p = Paths.get(wait);
            while (!Files.exists(p)) {
                Thread.sleep(20);
            }
        }
        end.countDown();
        for (Thread t : own) {
            t.join();
        }
    }
}
