package corpus;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

final class Nested {
    private int secret = 41;

    class Inner {
        int peek() {
            return ++secret;
        }
    }

    static class Item implements Comparable<Item> {
        final int k;

        Item(int k) {
            this.k = k;
        }

        @Override
        public int compareTo(Item o) { // generates a bridge compareTo(Object)
            return Integer.compare(k, o.k);
        }

        @Override
        public String toString() {
            return "I" + k;
        }
    }

    interface Greeter {
        String name();

        default String greet() {
            return prefix() + name();
        }

        private String prefix() {
            return "hi ";
        }

        static Greeter of(String n) {
            return () -> n;
        }
    }

    static String local(int n) {
        class Acc {
            int total;

            void add(int v) {
                total += v;
            }
        }
        Acc a = new Acc();
        for (int i = 0; i <= n; i++)
            a.add(i);
        return "local" + a.total;
    }

    static void run() {
        Nested n = new Nested();
        Nested.Inner in = n.new Inner();
        in.peek();
        Main.out("inner", in.peek());
        List<Item> items = new ArrayList<>();
        for (int k : new int[] { 5, 2, 9, 1 })
            items.add(new Item(k));
        Collections.sort(items);
        Main.out("bridge", items);
        Main.out("iface", Greeter.of("bob").greet());
        Main.out("local", local(10));
        Object anon = new Object() {
            @Override
            public String toString() {
                return "anon";
            }
        };
        Main.out("anon", anon);
    }
}
