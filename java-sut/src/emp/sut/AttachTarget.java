// SPDX-License-Identifier: Apache-2.0
// A program to attach emp to while it runs: exact call counts after the attach point, a named busy thread.
package emp.sut;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Phases, driven by files in {@code --dir DIR} so that a test decides when the attach has happened:
 * <pre>
 *   ready                 printed once the busy thread runs hot() (the attach may come now); its name,
 *                         "attach-worker-long-name", is longer than the 15 characters of an OS thread name
 *   (waits for DIR/go)
 *   calls N sum S         main called counted() exactly N times (--calls N), all after DIR/go appeared
 *   (waits for DIR/end)
 *   done                  the worker stopped; the program ends
 * </pre>
 * counted() is called by nothing else, so a trace of it, attached before DIR/go, must count exactly N calls.
 * The output does not depend on timing: it is the same with or without an agent.
 */
public final class AttachTarget {
    private static volatile boolean stop;
    /** Blackhole for hot()'s result, so the JIT keeps the loop. */
    private static volatile long sink;

    private AttachTarget() {
    }

    static long counted(long i) {
        return i * 31 + 7;
    }

    static long hot(long x) {
        for (int i = 0; i < 100_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    private static void await(Path p) throws InterruptedException {
        while (!Files.exists(p)) {
            Thread.sleep(10);
        }
    }

    public static void main(String[] args) throws Exception {
        Path dir = null;
        long calls = 100_000;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--dir") && i + 1 < args.length) {
                dir = Paths.get(args[++i]);
            } else if (args[i].equals("--calls") && i + 1 < args.length) {
                calls = Long.parseLong(args[++i]);
            } else {
                System.err.println("usage: java -cp java-sut.jar emp.sut.AttachTarget --dir DIR [--calls N]");
                System.exit(2);
            }
        }
        if (dir == null) {
            System.err.println("usage: java -cp java-sut.jar emp.sut.AttachTarget --dir DIR [--calls N]");
            System.exit(2);
        }
        Thread worker = new Thread(() -> {
            long x = 1;
            while (!stop) {
                x = hot(x);
            }
            sink = x;
        }, "attach-worker-long-name");
        worker.start();
        System.out.println("ready");
        System.out.flush();
        await(dir.resolve("go"));
        long sum = 0;
        for (long i = 0; i < calls; i++) {
            sum += counted(i);
        }
        System.out.println("calls " + calls + " sum " + sum);
        System.out.flush();
        await(dir.resolve("end"));
        stop = true;
        worker.join();
        System.out.println("done");
    }
}
