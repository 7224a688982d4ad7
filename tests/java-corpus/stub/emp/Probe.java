package emp;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Test stand-in for emp's probe class (tests/integration/rewriter_corpus.sh): counts enter, exit and
 * exitThrow per probe id and checks on a per-thread stack that every exit matches the innermost
 * open entry.  At shutdown it writes "<id> <enters> <exits> <throws>" lines, "mismatches N" and
 * "open N" to the file named by -Demp.probe.out (stderr if unset).
 */
public final class Probe {
    private static final int MAX = 1 << 18;
    private static final AtomicLongArray ENTERS = new AtomicLongArray(MAX);
    private static final AtomicLongArray EXITS = new AtomicLongArray(MAX);
    private static final AtomicLongArray THROWS = new AtomicLongArray(MAX);
    private static final List<String> PROBLEMS = new ArrayList<>();
    private static final List<Stack> STACKS = new ArrayList<>();
    private static final ThreadLocal<Stack> STACK = ThreadLocal.withInitial(Probe::newStack);

    private static final class Stack {
        int[] ids = new int[64];
        int depth;
        final String thread = Thread.currentThread().getName();
    }

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Probe::report, "emp-probe-report"));
    }

    private Probe() {
    }

    private static Stack newStack() {
        Stack s = new Stack();
        synchronized (STACKS) {
            STACKS.add(s);
        }
        return s;
    }

    private static void problem(String what) {
        synchronized (PROBLEMS) {
            PROBLEMS.add(what);
        }
    }

    public static void enter(int id) {
        ENTERS.incrementAndGet(id);
        Stack s = STACK.get();
        if (s.depth == s.ids.length)
            s.ids = java.util.Arrays.copyOf(s.ids, s.depth * 2);
        s.ids[s.depth++] = id;
    }

    private static void pop(int id, String kind) {
        Stack s = STACK.get();
        if (s.depth == 0) {
            problem(kind + " " + id + " on an empty stack in " + s.thread);
            return;
        }
        int top = s.ids[--s.depth];
        if (top != id)
            problem(kind + " " + id + " but innermost entry is " + top + " in " + s.thread);
    }

    public static void exit(int id) {
        EXITS.incrementAndGet(id);
        pop(id, "exit");
    }

    public static void exitThrow(int id) {
        THROWS.incrementAndGet(id);
        pop(id, "exitThrow");
    }

    private static void report() {
        String path = System.getProperty("emp.probe.out");
        try (PrintWriter w = path == null ? new PrintWriter(System.err) : new PrintWriter(new FileWriter(path))) {
            for (int id = 0; id < MAX; id++)
                if (ENTERS.get(id) != 0 || EXITS.get(id) != 0 || THROWS.get(id) != 0)
                    w.println(id + " " + ENTERS.get(id) + " " + EXITS.get(id) + " " + THROWS.get(id));
            int open = 0;
            synchronized (STACKS) {
                for (Stack s : STACKS) {
                    if (s.thread.equals("emp-probe-report"))
                        continue;
                    for (int i = 0; i < s.depth; i++)
                        problem("open entry " + s.ids[i] + " in " + s.thread);
                    open += s.depth;
                }
            }
            synchronized (PROBLEMS) {
                w.println("mismatches " + PROBLEMS.size());
                w.println("open " + open);
                for (String p : PROBLEMS.subList(0, Math.min(20, PROBLEMS.size())))
                    w.println("# " + p);
            }
        } catch (IOException e) {
            System.err.println("emp.Probe: cannot write " + path + ": " + e);
        }
    }
}
