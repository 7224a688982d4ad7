package corpus;

final class Ctors {
    static class Base {
        final int v;

        Base(int v) {
            if (v > 1000)
                throw new IllegalArgumentException("base " + v);
            this.v = v;
        }
    }

    static int check(int x) {
        if (x < 0)
            throw new IllegalArgumentException("neg " + x);
        return x;
    }

    /** Throws while evaluating super()'s argument (before `this` exists). */
    static final class ArgThrows extends Base {
        ArgThrows(int x) {
            super(check(x) + 1);
        }
    }

    /** Throws after super(). */
    static final class AfterThrows extends Base {
        final int w;

        AfterThrows(int x) {
            super(x);
            if (x == 7)
                throw new IllegalStateException("after " + x);
            w = x * 2;
        }
    }

    /** Ternary and object creation inside the super() arguments: branches before super(). */
    static final class Ternary extends Base {
        Ternary(int x, boolean b) {
            super(b ? new StringBuilder("ab").append(x).length() : (x > 5 ? x : -x));
        }
    }

    /** this() delegation, throwing inside the delegate. */
    static final class Chain extends Base {
        final String s;

        Chain(int x) {
            this(x, "c" + x);
        }

        Chain(int x, String s) {
            super(x);
            this.s = s;
        }
    }

    /** Anonymous class instance in super() arguments, instance initializer, field initializers. */
    static class Holder {
        final Runnable r;
        int field = 5;
        {
            field += 10;
        }

        Holder(Runnable r) {
            this.r = r;
        }
    }

    static final class Anon extends Holder {
        static int runs;

        Anon() {
            super(new Runnable() {
                public void run() {
                    runs++;
                }
            });
            r.run();
        }
    }

    /** A constructor with a loop and a try/catch after super(). */
    static final class Loop extends Base {
        int sum;

        Loop(int n) {
            super(n);
            for (int i = 0; i < n; i++) {
                try {
                    if (i == 2)
                        throw new RuntimeException("two");
                    sum += i;
                } catch (RuntimeException e) {
                    sum += 100;
                }
            }
        }
    }

    static void run() {
        try {
            new ArgThrows(-5);
        } catch (IllegalArgumentException e) {
            Main.out("ctor.arg", e.getMessage());
        }
        Main.out("ctor.argok", new ArgThrows(4).v);
        try {
            new AfterThrows(7);
        } catch (IllegalStateException e) {
            Main.out("ctor.after", e.getMessage());
        }
        try {
            new AfterThrows(2000);
        } catch (IllegalArgumentException e) {
            Main.out("ctor.super", e.getMessage());
        }
        Main.out("ctor.afterok", new AfterThrows(3).w);
        Main.out("ctor.ternary", new Ternary(3, true).v + " " + new Ternary(9, false).v + " " + new Ternary(2, false).v);
        Main.out("ctor.chain", new Chain(4).s);
        try {
            new Chain(5000);
        } catch (IllegalArgumentException e) {
            Main.out("ctor.chainthrow", e.getMessage());
        }
        Anon a = new Anon();
        Main.out("ctor.anon", Anon.runs + " " + a.field);
        Main.out("ctor.loop", new Loop(5).sum);
    }
}
