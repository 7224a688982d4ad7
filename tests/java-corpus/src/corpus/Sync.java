package corpus;

final class Sync {
    private int counter;
    private static final Object LOCK = new Object();
    static int shared;

    synchronized void inc() {
        counter++;
    }

    synchronized int incOrThrow(int i) {
        if (i % 50 == 49)
            throw new IllegalStateException("sync " + i);
        return ++counter;
    }

    static int block(int n) {
        int r = 0;
        for (int i = 0; i < n; i++) {
            synchronized (LOCK) {
                shared++;
                if (i == 3)
                    continue;
                r += i;
            }
        }
        return r;
    }

    static synchronized long staticSync(long a) {
        return a * 3;
    }

    static void run() throws InterruptedException {
        Sync s = new Sync();
        int[] errors = new int[2];
        Thread[] ts = new Thread[2];
        for (int t = 0; t < 2; t++) {
            final int ti = t;
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    s.inc();
                    try {
                        s.incOrThrow(i);
                    } catch (IllegalStateException e) {
                        errors[ti]++;
                    }
                    block(5);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts)
            t.join();
        Main.out("sync", s.counter + " " + (errors[0] + errors[1]) + " " + shared + " " + staticSync(7));
    }
}
