package corpus;

/** Runs every corpus shape once and prints deterministic results (compared instrumented vs not). */
public final class Main {
    static void out(String section, Object result) {
        System.out.println(section + ": " + result);
    }

    public static void main(String[] args) throws Exception {
        Exceptions.run();
        Ctors.run();
        Sync.run();
        Switches.run();
        Lambdas.run();
        Records.run();
        Nested.run();
        StaticInit.run();
        Numeric.run();
        Recursion.run();
        Huge.run();
        out("done", "ok");
    }
}
