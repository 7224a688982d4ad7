package corpus;

final class StaticInit {
    static final class Table {
        static final int[] SQUARES = new int[10];
        static {
            for (int i = 0; i < SQUARES.length; i++)
                SQUARES[i] = i * i;
        }
    }

    static final class Broken {
        static final int VALUE;
        static {
            if (Table.SQUARES[3] == 9)
                throw new IllegalStateException("broken clinit");
            VALUE = 1;
        }
    }

    static void run() {
        Main.out("clinit", Table.SQUARES[7]);
        try {
            Main.out("broken", Broken.VALUE);
        } catch (ExceptionInInitializerError e) {
            Main.out("broken", e.getCause().getMessage());
        }
        try {
            Main.out("broken", Broken.VALUE);
        } catch (NoClassDefFoundError e) {
            Main.out("broken", "ncdfe");
        }
    }
}
