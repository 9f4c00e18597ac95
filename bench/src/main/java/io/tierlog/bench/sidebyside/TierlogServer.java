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
 * <p>Thread-safety: not thread-safe; used by one harness thread.
 */
final class TierlogServer implements ServerUnderTest {
    private final Process process;
    private final String bootstrap;

    private TierlogServer(Process process, String bootstrap) {
        this.process = process;
        this.bootstrap = bootstrap;
    }

    static TierlogServer start(Path launcher, Path dir, List<String> extraSets) throws IOException {
        Files.createDirectories(dir);
        int port = Children.freePort();
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.add("serve");
        cmd.add("--set");
        cmd.add("listeners=PLAINTEXT://127.0.0.1:" + port);
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
        String bootstrap = "127.0.0.1:" + port;
        try {
            Children.awaitAnswering(p, bootstrap, out, Duration.ofMinutes(3));
        } catch (IOException e) {
            p.destroyForcibly();
            throw e;
        }
        return new TierlogServer(p, bootstrap);
    }

    @Override
    public String name() {
        return "tierlog";
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws IOException {
        Children.stop(process);
    }
}
