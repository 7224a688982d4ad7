// SPDX-License-Identifier: Apache-2.0
// The work behind the HTTP routes of emp.sut.Server, in a package of its own so trace mode can select exactly it
// (include=emp.sut.server.*).
package emp.sut.server;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The three routes' work.  Every result is consumed (returned and written into the response body), so the JIT
 * cannot drop it.
 * <ul>
 *   <li>{@link #cheap()}: a few hundred xorshift steps, a few µs.</li>
 *   <li>{@link #alloc()}: builds a tree of {@value #ALLOC_NODES} nodes (about 64 KiB) and stores it in one of
 *       {@value #RETAINED} slots, dropping the tree that was there.  The slots keep about 16 MiB alive that is
 *       replaced continuously, so objects survive young collections, are promoted and the old generation fills:
 *       with a small heap (e.g. {@code -XX:+UseSerialGC -Xmx64m}) the server pauses for full collections.</li>
 *   <li>{@link #cpu()}: {@value #CPU_STEPS} xorshift steps, a fixed amount of work (about 100 µs at 2.3 GHz).</li>
 * </ul>
 */
public final class Routes {
    /** Nodes per /alloc tree: 2048 nodes of 32 bytes = 64 KiB. */
    static final int ALLOC_NODES = 2048;
    /** Trees kept alive: 256 × 64 KiB = 16 MiB of replaced live data. */
    static final int RETAINED = 256;
    static final int CHEAP_STEPS = 500;
    static final int CPU_STEPS = 200_000;

    private static final AtomicReferenceArray<Node> SLOTS = new AtomicReferenceArray<>(RETAINED);

    private Routes() {
    }

    /** A binary tree node: 12-byte header + two references + one long ≈ 32 bytes. */
    static final class Node {
        final Node left;
        final Node right;
        final long value;

        Node(Node left, Node right, long value) {
            this.left = left;
            this.right = right;
            this.value = value;
        }
    }

    public static long cheap() {
        return xorshift(System.nanoTime() | 1, CHEAP_STEPS);
    }

    public static long cpu() {
        return xorshift(System.nanoTime() | 1, CPU_STEPS);
    }

    public static long alloc() {
        Node root = build(0, ALLOC_NODES);
        int slot = ThreadLocalRandom.current().nextInt(RETAINED);
        SLOTS.set(slot, root);
        return root.value;
    }

    /** A balanced tree over [lo, hi): hi - lo nodes. */
    private static Node build(int lo, int hi) {
        if (lo >= hi) {
            return null;
        }
        int mid = (lo + hi) >>> 1;
        Node l = build(lo, mid);
        Node r = build(mid + 1, hi);
        long v = mid + (l == null ? 0 : l.value) + (r == null ? 0 : r.value);
        return new Node(l, r, v);
    }

    private static long xorshift(long x, int steps) {
        for (int i = steps; i > 0; i--) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
