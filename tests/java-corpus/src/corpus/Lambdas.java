package corpus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

final class Lambdas {
    static int twice(int x) {
        return 2 * x;
    }

    static void run() {
        int base = 3;
        Function<Integer, Integer> f = x -> x + base;
        IntBinaryOperator op = (a, b) -> a * b + base;
        Main.out("lambda", f.apply(4) + " " + op.applyAsInt(5, 6));
        Map<Integer, List<Integer>> groups = IntStream.rangeClosed(1, 20).boxed()
                .filter(i -> i % 3 != 0)
                .map(Lambdas::twice)
                .collect(Collectors.groupingBy(i -> i % 4, TreeMap::new, Collectors.toList()));
        Main.out("stream", groups);
        Supplier<List<String>> sup = ArrayList::new;
        List<String> l = sup.get();
        l.add("x");
        Main.out("supplier", l);
        try {
            IntStream.range(0, 10).map(i -> 10 / (5 - i)).sum();
        } catch (ArithmeticException e) {
            Main.out("streamthrow", e.getMessage());
        }
        Runnable r = () -> {
            throw new UnsupportedOperationException("from lambda");
        };
        try {
            r.run();
        } catch (UnsupportedOperationException e) {
            Main.out("lambdathrow", e.getMessage());
        }
        String joined = List.of("b", "a", "c").stream().sorted().map(s -> s.toUpperCase()).collect(Collectors.joining("-"));
        Main.out("join", joined);
    }
}
