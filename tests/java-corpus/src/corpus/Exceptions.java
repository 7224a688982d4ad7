package corpus;

final class Exceptions {
    /** Throws at depth 0 after d recursive calls: d+1 enters, d+1 exitThrows. */
    static int dive(int d) {
        if (d == 0)
            throw new IllegalStateException("bottom");
        return dive(d - 1) + 1;
    }

    /** Catches the exception thrown at depth 0 at depth `at`. */
    static int catchAt(int d, int at) {
        if (d == at) {
            try {
                return catchAt(d - 1, at);
            } catch (IllegalStateException e) {
                return -100 - d;
            }
        }
        if (d == 0)
            throw new IllegalStateException("x");
        return catchAt(d - 1, at) + 1;
    }

    static int finallyReturn(int x) {
        try {
            if (x > 0)
                return x * 2;
            throw new IllegalArgumentException("neg");
        } finally {
            count++;
        }
    }

    @SuppressWarnings("finally")
    static int finallyOverrides(int x) {
        try {
            throw new RuntimeException("lost");
        } finally {
            return x + 1;
        }
    }

    static int count;

    static String nested(int k) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < k; i++) {
            try {
                try {
                    if (i % 3 == 0)
                        throw new ArithmeticException("a" + i);
                    if (i % 3 == 1)
                        throw new UnsupportedOperationException("u" + i);
                    sb.append('n');
                } catch (ArithmeticException e) {
                    sb.append('a');
                    if (i == 3)
                        continue;
                    if (i == 6)
                        break;
                } finally {
                    sb.append('f');
                }
            } catch (UnsupportedOperationException e) {
                sb.append('u');
            }
        }
        return sb.toString();
    }

    static void rethrow() throws Exception {
        try {
            dive(2);
        } catch (IllegalStateException e) {
            throw new Exception("wrapped", e);
        }
    }

    static int multiCatch(Object o) {
        try {
            return ((String) o).length() + 10 / ((String) o).length();
        } catch (ClassCastException | ArithmeticException e) {
            return e instanceof ClassCastException ? -1 : -2;
        } catch (NullPointerException e) {
            return -3;
        }
    }

    static void run() {
        try {
            dive(10);
        } catch (IllegalStateException e) {
            Main.out("dive", e.getMessage());
        }
        Main.out("catchAt", catchAt(12, 5) + " " + catchAt(4, 4));
        Main.out("finallyReturn", finallyReturn(21));
        try {
            finallyReturn(-1);
        } catch (IllegalArgumentException e) {
            Main.out("finallyReturn", e.getMessage() + " " + count);
        }
        Main.out("finallyOverrides", finallyOverrides(1));
        Main.out("nested", nested(10));
        try {
            rethrow();
        } catch (Exception e) {
            Main.out("rethrow", e.getMessage() + "/" + e.getCause().getMessage());
        }
        Main.out("multiCatch", multiCatch("abc") + " " + multiCatch(3) + " " + multiCatch("") + " " + multiCatch(null));
    }
}
