// SPDX-License-Identifier: Apache-2.0
// A real application to trace wholesale: javac (the JDK's own compiler, through javax.tools) compiling a real
// library's sources, e.g. commons-lang3's sources jar fetched from Maven at bench time.
package emp.sut;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles every {@code .java} file of the jar or zip {@code --src} (a sources jar) with the platform's javac,
 * {@code --repeat} times, sources read into memory once and class files kept in memory, so that the run is javac's
 * own work and not the disk's.  Annotation processing is off and warnings are not printed; an error in the sources
 * fails the run (exit 1, the first error on stderr).
 *
 * <p>Standard output is deterministic for given sources and JDK — the number of files and classes and a CRC-32 of
 * every class file (by class name) of the last compilation — so a run under an agent can be checked against a pure
 * run:
 * <pre>
 *   files 254
 *   classes 512
 *   checksum 1234567890
 * </pre>
 * Each compilation's elapsed time goes to standard error ({@code compile_ms}).
 */
public final class Compile {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Compile --src SOURCES.jar [options]",
            "Compiles every .java file of a sources jar with the platform's javac, in memory.",
            "  --src FILE        a jar or zip of Java sources (required)",
            "  --repeat N        compilations, each from scratch (default 1)",
            "  --timings FILE    write iteration,duration_ns: one row per compilation",
            "output: files, classes, checksum (stdout, deterministic); compile_ms per compilation (stderr)",
            "");

    private Compile() {
    }

    /** A source file held in memory. */
    static final class Source extends SimpleJavaFileObject {
        private final String text;

        Source(String path, String text) {
            super(URI.create("mem:///" + path), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }

    /** A class file javac writes, kept in memory under its binary name. */
    static final class Output extends SimpleJavaFileObject {
        private final String name;
        private final Map<String, byte[]> into;

        Output(String name, Map<String, byte[]> into) {
            super(URI.create("mem:///" + name.replace('.', '/') + ".class"), Kind.CLASS);
            this.name = name;
            this.into = into;
        }

        @Override
        public OutputStream openOutputStream() {
            return new ByteArrayOutputStream() {
                @Override
                public void close() {
                    into.put(name, toByteArray());
                }
            };
        }
    }

    static List<Source> readSources(String path) throws IOException {
        List<Source> sources = new ArrayList<>();
        try (ZipFile z = new ZipFile(path)) {
            Enumeration<? extends ZipEntry> e = z.entries();
            while (e.hasMoreElements()) {
                ZipEntry entry = e.nextElement();
                String name = entry.getName();
                if (entry.isDirectory() || !name.endsWith(".java") || name.endsWith("module-info.java")) {
                    continue;
                }
                try (InputStream in = z.getInputStream(entry)) {
                    sources.add(new Source(name, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
        }
        return sources;
    }

    /** One compilation from scratch; returns the class files by binary name, or exits 1 on an error. */
    static Map<String, byte[]> compile(JavaCompiler javac, List<Source> sources) throws IOException {
        Map<String, byte[]> classes = new TreeMap<>();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager std = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8);
        try (ForwardingJavaFileManager<StandardJavaFileManager> fm = new ForwardingJavaFileManager<>(std) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                    FileObject sibling) {
                return new Output(className, classes);
            }
        }) {
            List<String> options = List.of("-proc:none", "-nowarn", "-Xlint:none", "-XDsuppressNotes");
            Boolean ok = javac.getTask(null, fm, diags, options, null, sources).call();
            if (!ok) {
                for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        System.err.println("Compile: " + d);
                        break;
                    }
                }
                System.exit(1);
            }
        }
        return classes;
    }

    public static void main(String[] argv) throws Exception {
        Args a = Args.parse("Compile", USAGE, argv, "src", "repeat", "timings");
        String src = a.string("src", null);
        if (src == null) {
            a.fail("--src is required");
        }
        int repeat = a.intValue("repeat", 1, 1, 1000);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            System.err.println("Compile: no system Java compiler (run on a JDK, not a JRE)");
            System.exit(1);
        }
        List<Source> sources;
        try {
            sources = readSources(src);
        } catch (IOException e) {
            System.err.println("Compile: cannot read sources from '" + src + "': " + e);
            System.exit(1);
            return;
        }
        if (sources.isEmpty()) {
            System.err.println("Compile: no .java file in '" + src + "'");
            System.exit(1);
        }
        long[] durations = new long[repeat];
        Map<String, byte[]> classes = null;
        for (int i = 0; i < repeat; i++) {
            long t0 = System.nanoTime();
            classes = compile(javac, sources);
            durations[i] = System.nanoTime() - t0;
            System.err.println("compile_ms " + durations[i] / 1_000_000);
        }
        CRC32 crc = new CRC32();
        for (Map.Entry<String, byte[]> c : classes.entrySet()) {
            crc.update(c.getKey().getBytes(StandardCharsets.UTF_8));
            crc.update(c.getValue());
        }
        System.out.println("files " + sources.size());
        System.out.println("classes " + classes.size());
        System.out.println("checksum " + crc.getValue());
        String timings = a.string("timings", null);
        if (timings != null) {
            Timings.write("Compile", timings, durations);
        }
    }
}
