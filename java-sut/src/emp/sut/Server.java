// SPDX-License-Identifier: Apache-2.0
// An HTTP server to measure latency under load (issue 12): JDK only (com.sun.net.httpserver), three routes.
package emp.sut;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import emp.sut.server.Routes;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code java -cp java-sut.jar emp.sut.Server --port P [--threads N] [--inproc-load RATE --duration TIME]}.
 *
 * <p>Serves {@code GET /cheap}, {@code /alloc} and {@code /cpu} (see {@link Routes}) on 127.0.0.1 with N worker
 * threads, keep-alive, answering {@code 200} with a short text body ({@code <route> <result>\n}); any other path
 * gets {@code 404}.  Once it accepts connections it prints {@code server listening port=P} on stdout (with
 * {@code --port 0} P is the port the system chose).  It runs until it is killed.  Every JVM flag (GC, heap)
 * passes through, since this is a plain main class.
 *
 * <p>With {@code --inproc-load RATE --duration TIME} it also runs the open-loop schedule of emp-load from
 * threads inside its own JVM (the "composite" arrangement of the SPECjbb2015 study, see {@link InprocLoad}),
 * prints that generator's histogram in emp-load's CSV format and exits; {@code --warmup TIME} runs the same
 * schedule for TIME before, unreported (JIT warm-up: a cold server's backlog would otherwise be the tail).
 */
public final class Server {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar emp.sut.Server --port P [options]",
            "HTTP/1.1 server on 127.0.0.1 with the routes /cheap (a few us), /alloc (object graphs, GC pressure),",
            "/cpu (a fixed amount of work); prints 'server listening port=P' once it accepts.",
            "  --port P                 TCP port, 0 = any free port (required)",
            "  --threads N              worker threads (default 4)",
            "  --inproc-load RATE       also run an open-loop generator inside this JVM at RATE requests/s",
            "  --duration TIME          its run time (us, ms or s: 10s); required with --inproc-load",
            "  --warmup TIME            run the same load for TIME first, unreported (default none)",
            "  --connections C          its connections, one client thread each (default 16)",
            "  --mix cheap:70,alloc:20,cpu:10   its route mix (default cheap:100)",
            "output with --inproc-load: emp-load's CSV (measure,count,p50_us,...), then 'server inproc done ...'",
            "");

    private Server() {
    }

    public static void main(String[] argv) throws Exception {
        Args a = Args.parse("Server", USAGE, argv, "port", "threads", "inproc-load", "duration", "connections",
                "mix", "warmup");
        if (a.string("port", null) == null) {
            a.fail("--port is required");
        }
        int port = a.intValue("port", 0, 0, 65535);
        int threads = a.intValue("threads", 4, 1, 1024);
        String rate = a.string("inproc-load", null);
        String duration = a.string("duration", null);
        if ((rate == null) != (duration == null)) {
            a.fail("--inproc-load and --duration go together");
        }
        InprocLoad load = null;
        InprocLoad warmup = null;
        if (rate != null) {
            double r = a.doubleValue("inproc-load", 0, 1e-3, 1e7);
            int connections = a.intValue("connections", 16, 1, 4096);
            Mix mix = Mix.parse(a, a.string("mix", "cheap:100"));
            load = new InprocLoad(r, parseTimeNs(a, "duration"), connections, mix);
            if (a.string("warmup", null) != null) {
                warmup = new InprocLoad(r, parseTimeNs(a, "warmup"), connections, mix);
            }
        } else if (a.string("connections", null) != null || a.string("mix", null) != null
                || a.string("warmup", null) != null) {
            a.fail("--connections, --mix and --warmup belong to --inproc-load");
        }

        // The JDK server writes headers and body in separate writes; with Nagle on, the body waits for the
        // client's delayed ACK (40 ms on Linux) and every keep-alive request takes 40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.createContext("/", Server::handle);
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "server-worker");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(pool);
        server.start();
        System.out.println("server listening port=" + server.getAddress().getPort() + " threads=" + threads);
        System.out.flush();
        if (load != null) {
            if (warmup != null) {
                warmup.run(server.getAddress().getPort(), false);
            }
            load.run(server.getAddress().getPort(), true);
            server.stop(0);
            pool.shutdownNow();
            System.exit(0);
        }
    }

    private static void handle(HttpExchange ex) throws IOException {
        try {
            String path = ex.getRequestURI().getPath();
            long result;
            int status = 200;
            switch (path) {
                case "/cheap":
                    result = Routes.cheap();
                    break;
                case "/alloc":
                    result = Routes.alloc();
                    break;
                case "/cpu":
                    result = Routes.cpu();
                    break;
                default:
                    status = 404;
                    result = 0;
            }
            byte[] body = (path + " " + Long.toHexString(result) + "\n").getBytes(StandardCharsets.US_ASCII);
            ex.getResponseHeaders().set("Content-Type", "text/plain");
            ex.sendResponseHeaders(status, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        } finally {
            ex.close();
        }
    }

    /** TIME as emp's options write it: a number with unit us, ms or s ({@code 10s}, {@code 500ms}). */
    static long parseTimeNs(Args a, String name) {
        String v = a.string(name, "");
        double mult;
        String num;
        if (v.endsWith("us")) {
            mult = 1e3;
            num = v.substring(0, v.length() - 2);
        } else if (v.endsWith("ms")) {
            mult = 1e6;
            num = v.substring(0, v.length() - 2);
        } else if (v.endsWith("s")) {
            mult = 1e9;
            num = v.substring(0, v.length() - 1);
        } else {
            a.fail("--" + name + " expects a number with unit us, ms or s (e.g. 10s), got '" + v + "'");
            return 0;
        }
        double x;
        try {
            x = Double.parseDouble(num);
        } catch (NumberFormatException e) {
            a.fail("--" + name + " expects a number with unit us, ms or s (e.g. 10s), got '" + v + "'");
            return 0;
        }
        if (!(x > 0 && x * mult <= 86400e9)) {
            a.fail("--" + name + " must be in (0, 1 day], got '" + v + "'");
        }
        return (long) (x * mult);
    }
}
