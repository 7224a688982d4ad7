// SPDX-License-Identifier: Apache-2.0
// A real application to trace wholesale: a JDBC database (H2, fetched from Maven at bench time) under a
// multi-threaded load of point selects, range aggregates and joins.
package emp.sut;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Loads {@code --rows} customers and 4 × as many orders into the database at {@code --url} (one thread, batched
 * inserts), then runs {@code --queries} queries on each of {@code --threads} threads, each on its own connection:
 * in turn a point select by primary key, a range aggregate over one customer's orders and a join of customers and
 * orders grouped by region.  The JDBC driver is found on the class path at run time (this class compiles against
 * java.sql alone), e.g. {@code -cp java-sut.jar:h2-2.3.232.jar}.
 *
 * <p>Standard output is deterministic for given options — the work done and a checksum of every result read, so
 * a run under an agent can be checked against a pure run:
 * <pre>
 *   rows 50000
 *   orders 200000
 *   queries 8000
 *   checksum 1234567890123
 * </pre>
 * The elapsed times of the two phases go to standard error ({@code load_ms}, {@code query_ms}).
 */
public final class JdbcLoad {
    static final String USAGE = String.join("\n",
            "usage: java -cp java-sut.jar:DRIVER.jar emp.sut.JdbcLoad [options]",
            "Loads a small schema into a JDBC database, then queries it from several threads.",
            "  --url URL         JDBC URL (default jdbc:h2:mem:emp;DB_CLOSE_DELAY=-1)",
            "  --rows N          customers; orders are 4 x N (default 50000)",
            "  --threads T       query threads, one connection each (default 4)",
            "  --queries Q       queries per thread (default 2000)",
            "  --seed S          seed of the query parameters (default 1)",
            "  --timings FILE    write iteration,duration_ns: row 0 the load phase, row 1 the query phase",
            "output: rows, orders, queries, checksum (stdout, deterministic); load_ms, query_ms (stderr)",
            "");

    private static final String[] REGIONS = {"north", "south", "east", "west", "centre"};

    private JdbcLoad() {
    }

    static void load(Connection c, int rows) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(40), region VARCHAR(10))");
            s.execute("CREATE TABLE orders(id INT PRIMARY KEY, customer_id INT, amount BIGINT)");
            s.execute("CREATE INDEX orders_customer ON orders(customer_id)");
        }
        c.setAutoCommit(false);
        try (PreparedStatement pc = c.prepareStatement("INSERT INTO customer VALUES (?, ?, ?)");
             PreparedStatement po = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                pc.setInt(1, i);
                pc.setString(2, "customer-" + i);
                pc.setString(3, REGIONS[i % REGIONS.length]);
                pc.addBatch();
                for (int k = 0; k < 4; k++) {
                    int id = 4 * i + k;
                    po.setInt(1, id);
                    po.setInt(2, i);
                    po.setLong(3, (id * 7919L) % 10007);
                    po.addBatch();
                }
                if (i % 1000 == 999) {
                    pc.executeBatch();
                    po.executeBatch();
                }
            }
            pc.executeBatch();
            po.executeBatch();
        }
        c.commit();
        c.setAutoCommit(true);
    }

    /** One thread's queries; returns the sum of every value read. */
    static long query(Connection c, int rows, int queries, long seed) throws SQLException {
        SplittableRandom rnd = new SplittableRandom(seed);
        long sum = 0;
        try (PreparedStatement point = c.prepareStatement("SELECT name, region FROM customer WHERE id = ?");
             PreparedStatement range = c.prepareStatement(
                     "SELECT COUNT(*), SUM(amount) FROM orders WHERE customer_id BETWEEN ? AND ?");
             PreparedStatement join = c.prepareStatement(
                     "SELECT c.region, COUNT(*), SUM(o.amount) FROM customer c JOIN orders o ON o.customer_id = c.id"
                     + " WHERE c.id BETWEEN ? AND ? GROUP BY c.region ORDER BY c.region")) {
            for (int q = 0; q < queries; q++) {
                int id = rnd.nextInt(rows);
                switch (q % 3) {
                case 0:
                    point.setInt(1, id);
                    try (ResultSet r = point.executeQuery()) {
                        while (r.next()) {
                            sum += r.getString(1).length() + r.getString(2).length();
                        }
                    }
                    break;
                case 1:
                    range.setInt(1, id);
                    range.setInt(2, id + 20);
                    try (ResultSet r = range.executeQuery()) {
                        while (r.next()) {
                            sum += r.getLong(1) + r.getLong(2);
                        }
                    }
                    break;
                default:
                    join.setInt(1, id);
                    join.setInt(2, id + 50);
                    try (ResultSet r = join.executeQuery()) {
                        while (r.next()) {
                            sum += r.getString(1).length() + r.getLong(2) + r.getLong(3);
                        }
                    }
                    break;
                }
            }
        }
        return sum;
    }

    public static void main(String[] argv) throws Exception {
        Args a = Args.parse("JdbcLoad", USAGE, argv, "url", "rows", "threads", "queries", "seed",
                "timings");
        String url = a.string("url", "jdbc:h2:mem:emp;DB_CLOSE_DELAY=-1");
        int rows = a.intValue("rows", 50000, 100, 10_000_000);
        int threads = a.intValue("threads", 4, 1, 256);
        int queries = a.intValue("queries", 2000, 1, 100_000_000);
        long seed = a.longValue("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);

        long t0 = System.nanoTime();
        Connection main = DriverManager.getConnection(url);
        load(main, rows);
        long t1 = System.nanoTime();
        AtomicLong checksum = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final long s = seed * 1_000_003L + t;
            Thread w = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(url)) {
                    checksum.addAndGet(query(c, rows, queries, s));
                } catch (SQLException | RuntimeException e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            }, "jdbc-load-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        long t2 = System.nanoTime();
        main.close();
        if (!errors.isEmpty()) {
            System.err.println("JdbcLoad: " + errors.size() + " query thread(s) failed: " + errors.get(0));
            System.exit(1);
        }
        System.out.println("rows " + rows);
        System.out.println("orders " + 4L * rows);
        System.out.println("queries " + (long) threads * queries);
        System.out.println("checksum " + checksum.get());
        String timings = a.string("timings", null);
        if (timings != null) {
            Timings.write("JdbcLoad", timings, new long[] {t1 - t0, t2 - t1});
        }
        System.err.println("load_ms " + (t1 - t0) / 1_000_000);
        System.err.println("query_ms " + (t2 - t1) / 1_000_000);
    }
}
