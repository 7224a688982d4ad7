package corpus;

final class Recursion {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static boolean isEven(int n) {
        return n == 0 || isOdd(n - 1);
    }

    static boolean isOdd(int n) {
        return n != 0 && isEven(n - 1);
    }

    static int ackermann(int m, int n) {
        if (m == 0)
            return n + 1;
        if (n == 0)
            return ackermann(m - 1, 1);
        return ackermann(m - 1, ackermann(m, n - 1));
    }

    static void run() {
        Main.out("fib", fib(20));
        Main.out("evenodd", isEven(100) + " " + isOdd(7));
        Main.out("ackermann", ackermann(2, 3));
    }
}
