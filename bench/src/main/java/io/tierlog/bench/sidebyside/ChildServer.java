package io.tierlog.bench.sidebyside;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A {@link ServerUnderTest} that is an already started child process answering on a loopback port:
 * Kafka and tierlog differ only in how they are launched, not in how they are awaited, measured and
 * stopped.
 *
 * <p>Thread-safety: not thread-safe; used by one harness thread.
 */
final class ChildServer implements ServerUnderTest {
    private final String name;
    private final Process process;
    private final String bootstrap;

    private ChildServer(String name, Process process, String bootstrap) {
        this.name = name;
        this.process = process;
        this.bootstrap = bootstrap;
    }

    /**
     * Waits until the started {@code process} answers on {@code 127.0.0.1:port}; kills it if it
     * does not within {@code timeout}, so that a failed start leaves no child behind.
     *
     * @param out the file the process writes its output to, quoted when the start fails
     */
    static ChildServer awaitStarted(
            String name, Process process, int port, Path out, Duration timeout) throws IOException {
        String bootstrap = "127.0.0.1:" + port;
        try {
            Children.awaitAnswering(process, bootstrap, out, timeout);
        } catch (IOException e) {
            process.destroyForcibly();
            throw e;
        }
        return new ChildServer(name, process, bootstrap);
    }

    @Override
    public String name() {
        return name;
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
