package emp;

/**
 * Test stand-in for the agent's guarded probe class (agent/trace/java/guard/emp/Guard.java), for the guarded shape
 * (agent/trace/rewriter.h, struct emp_probes) in tests/integration/rewriter_corpus.sh.  Which ids it records:
 * none with id % 3 == 0; those with id % 3 == 1 for their first SWITCH entries in all (so calls entered before
 * the switch exit after it, and must still record their exits); all with id % 3 == 2.
 */
public final class Guard {
    private static final int SWITCH = 2000;
    private static int entries; /* racy across the corpus' threads: only when the switch happens depends on it */

    private Guard() {
    }

    public static boolean enter(int id) {
        int k = id % 3;
        if (k == 0 || (k == 1 && ++entries > SWITCH))
            return false;
        Probe.enter(id);
        return true;
    }

    public static void exit(boolean on, int id) {
        if (on)
            Probe.exit(id);
    }

    public static void exitThrow(boolean on, int id) {
        if (on)
            Probe.exitThrow(id);
    }
}
