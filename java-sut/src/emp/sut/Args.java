// SPDX-License-Identifier: Apache-2.0
// Minimal command-line parsing shared by the java-sut mains (no dependencies on purpose).
package emp.sut;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses {@code --name value} and {@code --name=value} options against a fixed list of known names.
 *
 * <p>Every problem (unknown option, missing or malformed value, value out of range) is reported as one line on
 * stderr, {@code <Program>: <message> (try --help)}, and the process exits with status 2.  {@code --help} prints
 * the usage text on stdout and exits with status 0.  Nothing is ever silently defaulted.
 */
final class Args {
    /** Exit status for usage errors. */
    static final int EXIT_USAGE = 2;

    private final String program;
    private final Map<String, String> values = new LinkedHashMap<>();

    private Args(String program) {
        this.program = program;
    }

    /**
     * @param program  the class's simple name, used as the prefix of error messages
     * @param usage    full usage text printed for --help
     * @param known    option names without the leading "--"
     */
    static Args parse(String program, String usage, String[] argv, String... known) {
        Args a = new Args(program);
        for (int i = 0; i < argv.length; i++) {
            String arg = argv[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                System.out.print(usage);
                System.out.flush();
                System.exit(0);
            }
            if (!arg.startsWith("--") || arg.length() == 2) {
                a.fail("unexpected argument '" + arg + "'");
            }
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            } else {
                name = arg.substring(2);
                value = null;
            }
            boolean ok = false;
            for (String k : known) {
                if (k.equals(name)) {
                    ok = true;
                    break;
                }
            }
            if (!ok) {
                a.fail("unknown option '--" + name + "'");
            }
            if (value == null) {
                if (i + 1 >= argv.length) {
                    a.fail("option '--" + name + "' needs a value");
                }
                value = argv[++i];
            }
            if (a.values.containsKey(name)) {
                a.fail("option '--" + name + "' given twice");
            }
            a.values.put(name, value);
        }
        return a;
    }

    /** Prints "{@code <Program>: msg (try --help)}" on stderr and exits with status 2. */
    void fail(String msg) {
        System.err.println(program + ": " + msg + " (try --help)");
        System.exit(EXIT_USAGE);
        throw new AssertionError("unreachable");
    }

    String string(String name, String def) {
        String v = values.get(name);
        return v == null ? def : v;
    }

    long longValue(String name, long def, long min, long max) {
        String v = values.get(name);
        if (v == null) {
            return def;
        }
        long x;
        try {
            x = Long.parseLong(v.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            fail("--" + name + " expects an integer, got '" + v + "'");
            return 0;
        }
        if (x < min || x > max) {
            fail("--" + name + " must be in [" + min + ", " + max + "], got " + x);
        }
        return x;
    }

    int intValue(String name, int def, int min, int max) {
        return (int) longValue(name, def, min, max);
    }

    double doubleValue(String name, double def, double min, double max) {
        String v = values.get(name);
        if (v == null) {
            return def;
        }
        double x;
        try {
            x = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            fail("--" + name + " expects a number, got '" + v + "'");
            return 0;
        }
        if (!(x >= min && x <= max)) { // also rejects NaN
            fail("--" + name + " must be in [" + min + ", " + max + "], got " + v);
        }
        return x;
    }

    /** A value from a fixed set of choices. */
    String choice(String name, String def, String... choices) {
        String v = string(name, def);
        for (String c : choices) {
            if (c.equals(v)) {
                return v;
            }
        }
        fail("--" + name + " must be one of " + String.join("|", choices) + ", got '" + v + "'");
        return def;
    }
}
