// SPDX-License-Identifier: Apache-2.0
// The route mix of a load generator (cheap:70,alloc:20,cpu:10) and its deterministic request sequence.
package emp.sut;

/**
 * Routes and integer weights; {@link #next()} picks by smooth weighted round robin (each pick adds every weight
 * to its route's credit, takes the route with the largest credit, the first on a tie, and takes the total off it).
 * The sequence is deterministic and spreads each route evenly: emp-load (load/mix.c) picks the same way, so both
 * generators send the same sequence of requests for the same mix.
 */
final class Mix {
    final String[] paths;
    final int[] weights;
    private final long[] credit;
    private final long total;

    private Mix(String[] paths, int[] weights) {
        this.paths = paths;
        this.weights = weights;
        this.credit = new long[paths.length];
        long t = 0;
        for (int w : weights) {
            t += w;
        }
        this.total = t;
    }

    static Mix parse(Args a, String spec) {
        String[] parts = spec.split(",", -1);
        String[] paths = new String[parts.length];
        int[] weights = new int[parts.length];
        long sum = 0;
        for (int i = 0; i < parts.length; i++) {
            String[] kv = parts[i].split(":", -1);
            if (kv.length != 2 || !(kv[0].equals("cheap") || kv[0].equals("alloc") || kv[0].equals("cpu"))) {
                a.fail("--mix expects route:weight,... with routes cheap, alloc, cpu, got '" + spec + "'");
            }
            for (int j = 0; j < i; j++) {
                if (paths[j].equals("/" + kv[0])) {
                    a.fail("--mix names route '" + kv[0] + "' twice");
                }
            }
            try {
                weights[i] = Integer.parseInt(kv[1]);
            } catch (NumberFormatException e) {
                a.fail("--mix weight of '" + kv[0] + "' must be an integer 0..1000000, got '" + kv[1] + "'");
            }
            if (weights[i] < 0 || weights[i] > 1_000_000) {
                a.fail("--mix weight of '" + kv[0] + "' must be an integer 0..1000000, got '" + kv[1] + "'");
            }
            paths[i] = "/" + kv[0];
            sum += weights[i];
        }
        if (sum == 0) {
            a.fail("--mix weights add up to 0");
        }
        return new Mix(paths, weights);
    }

    /** The path of the next request; not thread-safe (one scheduler thread calls it). */
    String next() {
        int best = 0;
        for (int i = 0; i < credit.length; i++) {
            credit[i] += weights[i];
            if (credit[i] > credit[best]) {
                best = i;
            }
        }
        credit[best] -= total;
        return paths[best];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < paths.length; i++) {
            sb.append(i == 0 ? "" : ",").append(paths[i].substring(1)).append(':').append(weights[i]);
        }
        return sb.toString();
    }
}
