package corpus;

final class Switches {
    enum Color { RED, GREEN, BLUE, CYAN }

    static int table(int k) {
        switch (k) {
        case 0: return 10;
        case 1: return 11;
        case 2: return 12;
        case 3: return 13;
        case 4: return 14;
        case 5: return 15;
        case 6: k += 100; break;
        default: return -1;
        }
        return k;
    }

    static int lookup(int k) {
        switch (k) {
        case -1000: return 1;
        case 7: return 2;
        case 100000: return 3;
        case 42: return 4;
        default: return 0;
        }
    }

    static String strings(String s) {
        switch (s) {
        case "alpha": return "A";
        case "beta": return "B";
        case "Aa": return "hash1";
        case "BB": return "hash2";
        default: return "?";
        }
    }

    static int enums(Color c) {
        switch (c) {
        case RED: return 1;
        case BLUE: return 3;
        default: return 0;
        }
    }

    static String expr(Object o, Color c) {
        int x = switch (c) {
            case RED -> 1;
            case GREEN -> {
                int y = o.hashCode() % 3;
                yield y + 10;
            }
            default -> throw new IllegalArgumentException("color " + c);
        };
        String t = o instanceof Integer i && i > 3 ? "big" : o instanceof String s ? "str:" + s : "other";
        return x + t;
    }

    /** Switch whose alignment padding changes with every instrumentation shift. */
    static long padded(int a, long b) {
        long r = b;
        for (int i = 0; i < a; i++) {
            switch (i & 7) {
            case 0: r += 1; break;
            case 1: r *= 3; break;
            case 2: r ^= 0x55; break;
            case 3: r -= 7; break;
            case 4: r <<= 1; break;
            case 5: r >>= 1; break;
            case 6: r += i; break;
            default: r = r % 1000003; break;
            }
        }
        return r;
    }

    static void run() {
        StringBuilder sb = new StringBuilder();
        for (int k = -1; k < 8; k++)
            sb.append(table(k)).append(',');
        Main.out("table", sb);
        Main.out("lookup", lookup(-1000) + " " + lookup(7) + " " + lookup(100000) + " " + lookup(42) + " " + lookup(5));
        Main.out("strings", strings("alpha") + strings("beta") + strings("Aa") + strings("BB") + strings("zz"));
        int e = 0;
        for (Color c : Color.values())
            e = e * 10 + enums(c);
        Main.out("enums", e);
        Main.out("expr", expr(5, Color.RED) + " " + expr("q", Color.GREEN) + " " + expr(1.5, Color.RED));
        try {
            expr(1, Color.CYAN);
        } catch (IllegalArgumentException ex) {
            Main.out("expr", ex.getMessage());
        }
        Main.out("padded", padded(50, 9));
    }
}
