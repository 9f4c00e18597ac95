package io.tierlog.itests.spark;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Runs SQL queries against tierlog's Iceberg tables in one local Spark session, as an analyst's
 * Spark would: Iceberg's {@code SparkCatalog} over the same JDBC catalog tierlog writes, reading
 * the data files with {@code S3FileIO} from the same bucket.
 *
 * <p>Arguments: settings {@code key=value} up to a {@code --}, then one SQL query per argument.
 * Settings: {@code catalog} (the Spark catalog name, default {@code tierlog}: JdbcCatalog keys its
 * rows by it), {@code uri} (the JDBC URL), {@code warehouse}, {@code s3.endpoint}, {@code
 * s3.access-key-id}, {@code s3.secret-access-key}; a key starting with {@code spark.} is a Spark
 * setting as it is; any other key is a catalog property ({@code
 * spark.sql.catalog.<catalog>.<key>}).
 *
 * <p>Output, on stdout: one JSON line per result row, {@code {"query":i,"row":{...}}} (the row as
 * Spark's {@code toJSON} writes it), then {@code {"query":i,"rows":n}}; a failed query prints
 * {@code {"query":i,"error":"..."}} and the process exits 2 after the others ran. Spark's own log
 * goes to stderr. Not thread-safe (a main class).
 */
public final class SparkQueryMain {
    private SparkQueryMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        List<String> queries = new ArrayList<>();
        boolean inQueries = false;
        for (String a : args) {
            if (inQueries) {
                queries.add(a);
            } else if (a.equals("--")) {
                inQueries = true;
            } else {
                int eq = a.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("not key=value: " + a);
                }
                settings.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        int failed = 0;
        try (SparkSession spark = session(settings)) {
            for (int i = 0; i < queries.size(); i++) {
                try {
                    List<String> rows = spark.sql(queries.get(i)).toJSON().collectAsList();
                    for (String row : rows) {
                        out.println("{\"query\":" + i + ",\"row\":" + row + "}");
                    }
                    out.println("{\"query\":" + i + ",\"rows\":" + rows.size() + "}");
                } catch (RuntimeException | LinkageError e) {
                    failed++;
                    e.printStackTrace();
                    out.println("{\"query\":" + i + ",\"error\":" + quote(e.toString()) + "}");
                }
            }
        }
        out.flush();
        System.exit(failed == 0 ? 0 : 2);
    }

    private static SparkSession session(Map<String, String> settings) {
        String catalog = settings.getOrDefault("catalog", "tierlog");
        String prefix = "spark.sql.catalog." + catalog;
        SparkSession.Builder b =
                SparkSession.builder()
                        .appName("tierlog-outside-reader")
                        .master("local[2]")
                        .config("spark.ui.enabled", "false")
                        .config("spark.driver.host", "127.0.0.1")
                        .config("spark.driver.bindAddress", "127.0.0.1")
                        .config("spark.sql.shuffle.partitions", "2")
                        .config("spark.sql.session.timeZone", "UTC")
                        .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
                        .config(prefix + ".type", "jdbc")
                        .config(prefix + ".jdbc.schema-version", "V1")
                        .config(prefix + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
                        .config(prefix + ".s3.path-style-access", "true")
                        .config(prefix + ".client.region", "us-east-1")
                        .config(prefix + ".http-client.type", "urlconnection");
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String k = e.getKey();
            if (k.equals("catalog")) {
                continue;
            }
            b.config(k.startsWith("spark.") ? k : prefix + "." + k, e.getValue());
        }
        return b.getOrCreate();
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\r' -> q.append("\\r");
                case '\t' -> q.append("\\t");
                default -> {
                    if (c < 0x20) {
                        q.append(String.format("\\u%04x", (int) c));
                    } else {
                        q.append(c);
                    }
                }
            }
        }
        return q.append('"').toString();
    }
}
