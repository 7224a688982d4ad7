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
 *
 * <p>With -Demp.probe.guarded=true (the guarded shape, calling the agent's own emp.Guard) it plays the budget
 * controller: ids with id % 3 == 0 are switched off before the program starts (run it as {@code emp.Probe
 * MAINCLASS}, so that this class is initialized first), those with id % 3 == 1 after SWITCH of their entries were
 * recorded (so calls entered before the switch exit after it, and must still record their exits), those with
 * id % 3 == 2 never.
 */
public final class Probe {
    private static final int MAX = 1 << 18;
    private static final AtomicLongArray ENTERS = new AtomicLongArray(MAX);
    private static final AtomicLongArray EXITS = new AtomicLongArray(MAX);
    private static final AtomicLongArray THROWS = new AtomicLongArray(MAX);
    private static final List<String> PROBLEMS = new ArrayList<>();
    private static final List<Stack> STACKS = new ArrayList<>();
    private static final ThreadLocal<Stack> STACK = ThreadLocal.withInitial(Probe::newStack);
    private static final boolean GUARDED = Boolean.getBoolean("emp.probe.guarded");
    private static final int SWITCH = 2000;
    private static int switchable; /* racy across the corpus' threads: only when the switch happens depends on it */

    private static final class Stack {
        int[] ids = new int[64];
        int depth;
        final String thread = Thread.currentThread().getName();
    }

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Probe::report, "emp-probe-report"));
        if (GUARDED)
            switchOff(0);
    }

    /** Runs {@code args[0]}'s main with the remaining arguments, after this class's initialization. */
    public static void main(String[] args) throws Throwable {
        try {
            Class.forName(args[0]).getMethod("main", String[].class)
                    .invoke(null, (Object) java.util.Arrays.copyOfRange(args, 1, args.length));
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static void switchOff(int residue) {
        for (int id = residue; id < Guard.OFF.length; id += 3)
            Guard.OFF[id] = 1;
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
        if (GUARDED && id % 3 == 1 && ++switchable == SWITCH)
            switchOff(1);
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
