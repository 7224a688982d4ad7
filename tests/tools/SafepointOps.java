// SPDX-License-Identifier: MIT
// SafepointOps N LOG [gc]: forces N safepoints that are not GC (Thread.getAllStackTraces: a VM_ThreadDump safepoint
// operation), or with "gc" N collections (System.gc), each inside one "request" of an emp-load log (due = before the call, done = 50 ms after it, on
// System.nanoTime = CLOCK_MONOTONIC), 20 ms apart, with 200 ms of quiet before and after.  Prints the JVM's own
// sun.rt.safepoints count before and after as "safepoints C0 C1" (needs --add-exports
// java.management/sun.management=ALL-UNNAMED).
import java.io.PrintWriter;

public class SafepointOps {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean gc = args.length > 2 && args[2].equals("gc");
        var rt = sun.management.ManagementFactoryHelper.getHotspotRuntimeMBean();
        long c0 = rt.getSafepointCount();
        Thread.sleep(200);
        long[] due = new long[n], done = new long[n];
        for (int i = 0; i < n; i++) {
            due[i] = System.nanoTime();
            if (gc)
                System.gc();
            else
                Thread.getAllStackTraces();
            Thread.sleep(50);
            done[i] = System.nanoTime();
            Thread.sleep(20);
        }
        Thread.sleep(200);
        long c1 = rt.getSafepointCount();
        try (PrintWriter w = new PrintWriter(args[1])) {
            w.println("due_ns,sent_ns,done_ns,status");
            for (int i = 0; i < n; i++)
                w.println(due[i] + "," + due[i] + "," + done[i] + ",200");
        }
        System.out.println("safepoints " + c0 + " " + c1);
    }
}
