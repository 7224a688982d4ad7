// SPDX-License-Identifier: MIT
// HdrOracle - the reference for emp's histogram (analyzer/lib/hdr.c): Gil Tene's HdrHistogram itself, on the same
// emp-load logs.  Run as a single-file program with the library on the class path (tests/integration/latency.sh):
//   java -cp HdrHistogram-2.2.2.jar tests/tools/HdrOracle.java LOG...
// Prints, like `emp-analyze latency --format=csv` and emp-load's CSV: log,measure,count,p50_us,p90_us,p99_us,
// p999_us,p9999_us,max_us, the latencies recorded as emp-load records them (µs, truncated) into
// Histogram(1, 3600e6, 3); max_us is the exact largest value.
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.HdrHistogram.Histogram;

public final class HdrOracle {
    public static void main(String[] args) throws Exception {
        System.out.println("log,measure,count,p50_us,p90_us,p99_us,p999_us,p9999_us,max_us");
        for (String path : args) {
            Histogram corrected = new Histogram(1, 3600L * 1000000, 3);
            Histogram uncorrected = new Histogram(1, 3600L * 1000000, 3);
            long maxC = 0;
            long maxU = 0;
            try (BufferedReader r = Files.newBufferedReader(Paths.get(path))) {
                String line = r.readLine();
                if (!"due_ns,sent_ns,done_ns,status".equals(line)) {
                    throw new IllegalArgumentException(path + ": bad header " + line);
                }
                while ((line = r.readLine()) != null) {
                    String[] f = line.split(",", -1);
                    if (f[3].isEmpty() || !Character.isDigit(f[3].charAt(0))) {
                        continue;
                    }
                    long due = Long.parseLong(f[0]);
                    long sent = Long.parseLong(f[1]);
                    long done = Long.parseLong(f[2]);
                    long c = (done - due) / 1000;
                    long u = (done - sent) / 1000;
                    corrected.recordValue(c);
                    uncorrected.recordValue(u);
                    maxC = Math.max(maxC, c);
                    maxU = Math.max(maxU, u);
                }
            }
            print(path, "corrected", corrected, maxC);
            print(path, "uncorrected", uncorrected, maxU);
        }
    }

    private static void print(String path, String measure, Histogram h, long max) {
        StringBuilder sb = new StringBuilder(path).append(',').append(measure).append(',').append(h.getTotalCount());
        for (double p : new double[] {50, 90, 99, 99.9, 99.99}) {
            sb.append(',').append(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p));
        }
        System.out.println(sb.append(',').append(max));
    }
}
