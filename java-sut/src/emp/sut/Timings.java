// SPDX-License-Identifier: Apache-2.0
// Per-iteration durations: CSV output and the median printed in summary lines.
package emp.sut;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

final class Timings {
    private Timings() {
    }

    /**
     * Writes {@code iteration,duration_ns} followed by one row per element (iteration counted from 0).
     * Called only after the measured loop, so file I/O never disturbs the measurement.  An I/O error is
     * fatal: one line on stderr, exit status 1.
     */
    static void write(String program, String file, long[] durationsNs) {
        try (BufferedWriter w = Files.newBufferedWriter(Paths.get(file), StandardCharsets.US_ASCII)) {
            StringBuilder sb = new StringBuilder(32);
            w.write("iteration,duration_ns\n");
            for (int i = 0; i < durationsNs.length; i++) {
                sb.setLength(0);
                sb.append(i).append(',').append(durationsNs[i]).append('\n');
                w.append(sb);
            }
        } catch (IOException e) {
            System.err.println(program + ": cannot write timings to '" + file + "': " + e);
            System.exit(1);
        }
    }

    /** Median (lower median for an even count); 0 for an empty array.  Does not modify its argument. */
    static long median(long[] durationsNs) {
        if (durationsNs.length == 0) {
            return 0;
        }
        long[] c = durationsNs.clone();
        Arrays.sort(c);
        return c[(c.length - 1) / 2];
    }
}
