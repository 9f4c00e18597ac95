package io.tierlog.bench.sidebyside;

import java.io.IOException;

/**
 * A Kafka-protocol server running as its own OS process, measured by the side-by-side harness.
 *
 * <p>Thread-safety: implementations are used by one harness thread.
 */
interface ServerUnderTest extends AutoCloseable {
    /** Short label used in the report ("kafka", "tierlog"). */
    String name();

    /** {@code host:port} for {@code bootstrap.servers}. */
    String bootstrapServers();

    /** CPU seconds (user + system) the server's process tree has used since it started. */
    default double cpuSeconds() throws IOException {
        return ProcCpu.treeSeconds(pid());
    }

    /** Process id of the server (the JVM, after the launcher's {@code exec}). */
    long pid();

    /** Stops the server gracefully and waits for it to exit. */
    @Override
    void close() throws IOException;
}
