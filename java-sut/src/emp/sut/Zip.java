// SPDX-License-Identifier: Apache-2.0
// A workload that spends most of its time in JDK native code (zlib behind java.util.zip.Deflater).
package emp.sut;

import java.util.SplittableRandom;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Compresses the same semi-random buffer again and again for {@code --seconds}.  Nearly all the CPU time is in
 * libzip/zlib, reached through {@code java.util.zip.Deflater.deflateBytesBytes} (a JNI method), called from
 * {@link #compressLoop}: a profiler with native frames should show
 * {@code emp.sut.Zip.compressLoop -> java.util.zip.Deflater.deflate -> ... -> [native] deflate...}.
 */
public final class Zip {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Zip [options]",
            "Deflate a semi-random buffer in a loop (time in JDK native code under emp.sut.Zip.compressLoop).",
            "  --seconds S       run time in seconds (default 4)",
            "  --size N          bytes per buffer (default 1048576)",
            "  --level L         Deflater level 0..9 (default 6)",
            "  --seed S          seed of the data (default 7)",
            "");

    private Zip() {
    }

    /**
     * Data that compresses to roughly half its size: random bytes from a small alphabet with runs, so zlib
     * does real match searching (neither trivially compressible nor incompressible).
     */
    static byte[] makeData(int size, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] data = new byte[size];
        int i = 0;
        while (i < size) {
            byte b = (byte) ('a' + rnd.nextInt(16));
            int run = 1 + (rnd.nextInt(8) == 0 ? rnd.nextInt(12) : 0);
            for (int k = 0; k < run && i < size; k++) {
                data[i++] = b;
            }
        }
        return data;
    }

    /**
     * Deflates {@code data} completely, once per round, until {@code deadlineNanos}.  Returns
     * {rounds, bytes in, bytes out, CRC32 of the last output} in {@code out}.
     */
    static void compressLoop(byte[] data, int level, long deadlineNanos, long[] out) {
        Deflater deflater = new Deflater(level);
        byte[] buf = new byte[data.length + 1024];
        CRC32 crc = new CRC32();
        long rounds = 0;
        long in = 0;
        long produced = 0;
        try {
            do {
                deflater.reset();
                deflater.setInput(data);
                deflater.finish();
                int n = 0;
                while (!deflater.finished()) {
                    n = deflater.deflate(buf, 0, buf.length); // one buffer holds the output; loop for safety
                    produced += n;
                }
                crc.reset();
                crc.update(buf, 0, n);
                in += data.length;
                rounds++;
            } while (System.nanoTime() < deadlineNanos);
        } finally {
            deflater.end();
        }
        out[0] = rounds;
        out[1] = in;
        out[2] = produced;
        out[3] = crc.getValue();
    }

    public static void main(String[] argv) {
        Args a = Args.parse("Zip", USAGE, argv, "seconds", "size", "level", "seed");
        double seconds = a.doubleValue("seconds", 4.0, 0.0, 1e6);
        int size = a.intValue("size", 1 << 20, 1, 1 << 30);
        int level = a.intValue("level", 6, 0, 9);
        long seed = a.longValue("seed", 7, Long.MIN_VALUE, Long.MAX_VALUE);

        byte[] data = makeData(size, seed);
        System.out.println("zip seconds=" + seconds + " size=" + size + " level=" + level
                + " method=emp.sut.Zip.compressLoop");
        System.out.flush();

        long[] r = new long[4];
        long t0 = System.nanoTime();
        compressLoop(data, level, t0 + (long) (seconds * 1e9), r);
        long wall = System.nanoTime() - t0;
        System.out.println("zip done rounds=" + r[0] + " bytes_in=" + r[1] + " bytes_out=" + r[2]
                + " ratio=" + String.format(java.util.Locale.ROOT, "%.3f", r[2] / (double) Math.max(1, r[1]))
                + " mb_per_s=" + String.format(java.util.Locale.ROOT, "%.1f", r[1] / 1e6 / (wall / 1e9))
                + " wall_ns=" + wall + " crc=" + Long.toHexString(r[3]));
    }
}
