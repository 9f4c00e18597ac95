package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.compactor.testing.ChildClasspath;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tierlog} commands on a class path without {@code tierlog-embedded-s3}, as an embedder
 * with its own S3 service has it: with an {@code s3.endpoint} everything works; without one, the
 * embedded default is refused in one line saying what to do (exit 2), before anything is stored.
 */
class EmbeddedS3AbsentIT {
    private static final String SERVICE =
            "META-INF/services/io.tierlog.common.EmbeddedObjectStore$Provider";
    private static final String REFUSAL =
            "the embedded S3 server (the default without s3.endpoint) is not on the class path: set"
                    + " s3.endpoint to your S3 service, or add io.tierlog:tierlog-embedded-s3";
    private static final Pattern LOG_LINE =
            Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\S+ \\[[^\\]]+\\] (TRACE|DEBUG|INFO|WARN) .*");

    @TempDir Path dir;

    record Exited(int exit, List<String> errors, String output) {}

    /** This JVM's class path without the entries that provide the embedded S3 server. */
    private String classPathWithoutEmbeddedS3() throws IOException {
        List<String> kept = new ArrayList<>();
        int dropped = 0;
        for (String e : ChildClasspath.snapshot(dir.resolve("cp")).split(File.pathSeparator)) {
            if (providesEmbeddedS3(Path.of(e))) {
                dropped++;
            } else {
                kept.add(e);
            }
        }
        assertThat(dropped).as("class path entries providing the embedded S3 server").isOne();
        return String.join(File.pathSeparator, kept);
    }

    private static boolean providesEmbeddedS3(Path entry) throws IOException {
        if (Files.isDirectory(entry)) {
            return Files.exists(entry.resolve(SERVICE));
        }
        if (!entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return false;
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            return jar.getEntry(SERVICE) != null;
        }
    }

    private Exited tierlog(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(classPathWithoutEmbeddedS3());
        cmd.add("io.tierlog.server.cli.TierlogCli");
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out-" + System.nanoTime());
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("tierlog did not exit: " + Files.readString(out));
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        List<String> errors =
                output.lines()
                        .filter(l -> l.startsWith("tierlog ") || l.startsWith("\tat "))
                        .filter(l -> !LOG_LINE.matcher(l).matches())
                        .toList();
        return new Exited(p.exitValue(), errors, output);
    }

    @Test
    void offloadWithoutAnEndpointIsRefusedInOneLineBeforeAnythingIsStored() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path data = dir.resolve("data");
        Exited r =
                tierlog(
                        "offload",
                        "--log-dir=" + logs,
                        "--once",
                        "--progress=lines",
                        "--set=data.dir=" + data);
        assertThat(r.exit()).as(r.output()).isEqualTo(2);
        assertThat(r.errors()).as(r.output()).containsExactly("tierlog offload: " + REFUSAL);
        assertThat(data.resolve("s3")).doesNotExist();
        assertThat(data.resolve("catalog.db")).doesNotExist();
    }

    @Test
    void serveWithoutAnEndpointIsRefusedInOneLine() throws Exception {
        Path data = dir.resolve("data");
        Exited r =
                tierlog(
                        "serve",
                        "--set=data.dir=" + data,
                        "--set=listeners=PLAINTEXT://127.0.0.1:" + freePort(),
                        "--set=schema.registry.listen=");
        assertThat(r.exit()).as(r.output()).isEqualTo(2);
        assertThat(r.errors()).as(r.output()).containsExactly("tierlog serve: " + REFUSAL);
        assertThat(data.resolve("s3")).doesNotExist();
    }

    @Test
    void withAnEndpointTheLeanClassPathOffloads() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        // The S3 service the embedder runs (here in the test JVM, which has the embedded server).
        try (EmbeddedS3Server s3 = EmbeddedS3Server.start(dir.resolve("their-s3"))) {
            List<String> args = new ArrayList<>(List.of("offload", "--log-dir=" + logs, "--once"));
            args.add("--progress=lines");
            args.add("--set=data.dir=" + dir.resolve("data"));
            s3.clientConfig().asMap().forEach((k, v) -> args.add("--set=" + k + "=" + v));
            Exited r = tierlog(args.toArray(String[]::new));
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains("offloaded 0 objects").doesNotContain("embedded S3");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
