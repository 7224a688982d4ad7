// SPDX-License-Identifier: Apache-2.0
// A program for trace mode's budget=: two tiny methods called millions of times, two heavy ones called a few times.
package emp.sut;

/**
 * Each of {@code --rounds} rounds calls {@link #hot(int)} once, which calls the tiny methods {@link #tinyA(long)} and
 * {@link #tinyB(long)} {@code --tiny} times each, then the heavy methods {@link #heavyA(int)} and {@link #heavyB(int)}
 * once each ({@code --steps} xorshift steps each, no calls).  With a budget the probes of the tiny ones cost far more
 * than the time they account for, those of the heavy ones nothing: tests/integration/trace_budget.sh checks that only
 * the tiny ones lose their probes.  Every method that test follows has more than 35 bytes of bytecode (budget= leaves
 * smaller ones uninstrumented, agent/trace/tracer.c): tiny in time, not in code; only the constructor is smaller.  Prints a checksum and the call counts, identical with and without an agent.
 */
public final class Budget {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Budget [options]",
            "Tiny hot methods and heavy cold ones, for trace mode's budget=.",
            "  --rounds N   rounds (default 30)",
            "  --tiny N     calls of each tiny method per round (default 200000)",
            "  --steps N    xorshift steps of each heavy method per round (default 20000000)",
            "");

    static long tinyCalls;

    static long tinyA(long x) {
        tinyCalls++;
        long y = x * 31 + 7;
        y ^= y >>> 17;
        y += y << 5;
        return y ^ (y >>> 11);
    }

    static long tinyB(long x) {
        tinyCalls++;
        long y = x ^ (x >>> 3);
        y += y << 7;
        y ^= y >>> 13;
        y ^= y >>> 29;
        return y + (y << 2);
    }

    static long hot(int n) {
        long s = 1;
        for (int i = 0; i < n; i++)
            s = tinyA(s) + tinyB(i);
        return s ^ (s >>> 32) ^ (s << 7) ^ n;
    }

    static long heavyA(int steps) {
        long x = 88172645463325252L;
        for (int i = 0; i < steps; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long heavyB(int steps) {
        long x = 2463534242L;
        for (int i = 0; i < steps; i++) {
            x ^= x << 5;
            x ^= x >>> 9;
            x ^= x << 11;
        }
        return x;
    }

    public static void main(String[] argv) {
        Args a = Args.parse("Budget", USAGE, argv, "rounds", "tiny", "steps");
        int rounds = (int) a.longValue("rounds", 30, 1, 1_000_000);
        int tiny = (int) a.longValue("tiny", 200_000, 0, 1_000_000_000);
        int steps = (int) a.longValue("steps", 20_000_000, 0, 2_000_000_000);
        long sum = 0;
        for (int r = 0; r < rounds; r++)
            sum += hot(tiny) + heavyA(steps) + heavyB(steps);
        System.out.println("checksum " + sum);
        System.out.println("tiny calls " + tinyCalls);
        System.out.println("rounds " + rounds);
    }
}
