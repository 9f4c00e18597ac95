package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * tierlog as a child process: {@code bin/tierlog serve --set listeners=PLAINTEXT://127.0.0.1:PORT
 * --set data.dir=DIR} (the launcher {@code exec}s the JVM, so the child's pid is the server's),
 * plus any extra {@code --set} pairs.
 *
 * <p>Stateless: {@link #start} launches the process and hands it to {@link ChildServer}.
 */
final class TierlogServer {
    private TierlogServer() {}

    static ServerUnderTest start(Path launcher, Path dir, List<String> extraSets)
            throws IOException {
        Files.createDirectories(dir);
        int port = Children.freePort();
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.add("serve");
        cmd.add("--set");
        cmd.add("listeners=PLAINTEXT://127.0.0.1:" + port);
        cmd.add("--set");
        cmd.add("schema.registry.listen="); // benches measure Kafka; side-by-side runs never clash
        cmd.add("--set");
        cmd.add("data.dir=" + dir.resolve("data").toAbsolutePath());
        for (String s : extraSets) {
            cmd.add("--set");
            cmd.add(s);
        }
        Path out = dir.resolve("tierlog.out");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                        .start();
        return ChildServer.awaitStarted("tierlog", p, port, out, Duration.ofMinutes(3));
    }
}
