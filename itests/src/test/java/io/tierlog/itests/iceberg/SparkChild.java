package io.tierlog.itests.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Spark 4.1 with Iceberg's runtime (module itests-spark's SparkQueryMain) as a child JVM: one local
 * session for a list of queries, since each start costs 10-40 s. Its class path is the one
 * itests-spark wrote (system properties {@code tierlog.spark.classes} and {@code
 * tierlog.spark.classpath}, set by failsafe), so Spark's dependency tree never meets tierlog's.
 * Thread-safe: stateless.
 */
final class SparkChild {
    /** Spark's own JVM options (its launcher's JavaModuleOptions, 4.1.3). */
    static final List<String> JVM_OPTIONS =
            List.of(
                    "-Xmx1g",
                    "-XX:+IgnoreUnrecognizedVMOptions",
                    "--add-modules=jdk.incubator.vector",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                    "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
                    "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                    "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "-Djdk.reflect.useDirectMethodHandle=false",
                    "-Dio.netty.tryReflectionSetAccessible=true",
                    "-Dio.netty.allocator.type=pooled",
                    "-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE");

    private SparkChild() {}

    /** itests-spark's class path; fails when itests-spark was not built. */
    static String classPath() throws IOException {
        String classes = System.getProperty("tierlog.spark.classes");
        String file = System.getProperty("tierlog.spark.classpath");
        Assumptions.assumeTrue(
                classes != null && file != null,
                "tierlog.spark.classes/classpath not set: run through failsafe (mvn verify)");
        Path cp = Path.of(file);
        if (!Files.exists(cp) || !Files.isDirectory(Path.of(classes))) {
            throw new AssertionError(
                    "itests-spark is not built (" + cp + "): build it with -pl itests -am");
        }
        return classes
                + java.io.File.pathSeparator
                + Files.readString(cp, StandardCharsets.UTF_8).trim();
    }

    /**
     * Runs {@code queries} in one Spark session over {@code catalog}; returns each query's rows
     * (Spark's JSON of the row), in order.
     *
     * @throws AssertionError if a query failed
     */
    static List<List<JsonNode>> query(Path workDir, ReaderCatalog catalog, List<String> queries)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(catalog.settings());
        args.add("--");
        args.addAll(queries);
        ReaderProcess.Output out =
                ReaderProcess.run(
                        workDir,
                        "spark",
                        JVM_OPTIONS,
                        classPath(),
                        "io.tierlog.itests.spark.SparkQueryMain",
                        args,
                        Duration.ofMinutes(5));
        List<List<JsonNode>> rows = new ArrayList<>();
        for (int i = 0; i < queries.size(); i++) {
            rows.add(new ArrayList<>());
        }
        boolean[] done = new boolean[queries.size()];
        for (JsonNode line : out.lines()) {
            int q = line.get("query").asInt();
            if (line.has("row")) {
                rows.get(q).add(line.get("row"));
            } else if (line.has("rows")) {
                done[q] = true;
            }
        }
        for (int i = 0; i < done.length; i++) {
            if (!done[i]) {
                throw new AssertionError("Spark did not finish query " + i + ": " + queries.get(i));
            }
        }
        return rows;
    }
}
