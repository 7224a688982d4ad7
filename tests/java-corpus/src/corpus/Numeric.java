package corpus;

final class Numeric {
    static double mix(long a, double b, int c, long d, float e) {
        long x = a * d + c;
        double y = b / 3 + e;
        long z = x ^ (x >>> 7);
        double w = y * y - Math.sqrt(Math.abs(y));
        return z % 1000 + Math.floor(w * 1000) / 1000;
    }

    /** The loop starts at pc 0: a back edge targets offset 0. */
    static int spin(int n) {
        while (true) {
            n -= 3;
            if (n < 0)
                return n;
        }
    }

    static long doLong(long v, int times) {
        long acc = 1;
        for (int i = 0; i < times; i++) {
            acc = acc * v + i;
            if (acc > 1_000_000_000_000L)
                acc %= 999_999_937L;
        }
        return acc;
    }

    static void run() {
        Main.out("mix", mix(123456789L, 2.5, 7, -3L, 1.25f));
        Main.out("spin", spin(10));
        Main.out("long", doLong(31, 40));
        Main.out("wide", Huge.wideLocals(3));
    }
}
