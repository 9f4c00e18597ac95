package io.tierlog.itests.eos;

import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.itests.testing.ServeProcess;
import io.tierlog.server.ServerOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;

/**
 * The server a transactions IT runs against, as a child JVM that can be killed with SIGKILL and
 * started again on its data, behind a bootstrap address that stays the same: Apache Kafka 4.4 (to
 * prove the test itself) or {@code tierlog serve}. Not thread-safe: one test thread drives it.
 */
abstract class TxnTarget implements AutoCloseable {
    /** The targets by name, for parameterized tests. */
    static TxnTarget of(String name, Path dir) throws IOException {
        return switch (name) {
            case "kafka" -> new Kafka(dir);
            case "tierlog" -> new Tierlog(dir);
            default -> throw new IllegalArgumentException(name);
        };
    }

    abstract String bootstrap();

    /** SIGKILL, and waits until the process is gone. */
    abstract void kill() throws Exception;

    /** Starts it again on the same data; returns once it accepts connections. */
    abstract void restart() throws IOException;

    /** While killed: deletes the transaction coordinator's state, so open txns hang. */
    abstract void deleteTransactionState() throws IOException;

    /** The broker id for {@code --broker-id} arguments. */
    abstract int brokerId();

    /**
     * Whether the server finalizes the {@code transaction.version} feature (tierlog does once its
     * transactions are switched on; until then transactional clients cannot run against it).
     */
    boolean servesTransactions() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
            FeatureMetadata f =
                    admin.describeFeatures().featureMetadata().get(60, TimeUnit.SECONDS);
            return f.finalizedFeatures().containsKey("transaction.version");
        }
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Kafka 4.4 (KRaft, one node), advertising a forwarder's port that outlives its restarts. */
    private static final class Kafka extends TxnTarget {
        private static final Pattern LISTENER =
                Pattern.compile("^listeners=PLAINTEXT://[^:]+:(\\d+)", Pattern.MULTILINE);
        private final Path dir;
        private final TcpForwarder forwarder;
        private KafkaBroker broker;

        Kafka(Path dir) throws IOException {
            this.dir = dir;
            // the broker's port changes at each start: read it from the config it was started with
            this.forwarder =
                    new TcpForwarder(
                            () -> {
                                try {
                                    Matcher m =
                                            LISTENER.matcher(
                                                    Files.readString(
                                                            dir.resolve("server.properties")));
                                    if (!m.find()) {
                                        throw new IllegalStateException("no listener port");
                                    }
                                    return Integer.parseInt(m.group(1));
                                } catch (IOException e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            restart();
        }

        @Override
        String bootstrap() {
            return "127.0.0.1:" + forwarder.port();
        }

        @Override
        void kill() throws Exception {
            ProcessHandle h = ProcessHandle.of(broker.pid()).orElseThrow();
            h.destroyForcibly();
            h.onExit().get(60, TimeUnit.SECONDS);
        }

        @Override
        void restart() throws IOException {
            broker =
                    KafkaBroker.start(
                            dir,
                            Map.of(
                                    "advertised.listeners",
                                    "PLAINTEXT://127.0.0.1:" + forwarder.port(),
                                    "transaction.state.log.num.partitions",
                                    "1",
                                    "log.flush.interval.messages",
                                    Long.toString(Long.MAX_VALUE)));
        }

        @Override
        void deleteTransactionState() throws IOException {
            try (Stream<Path> dirs = Files.list(broker.logDir())) {
                for (Path p :
                        dirs.filter(
                                        p ->
                                                p.getFileName()
                                                        .toString()
                                                        .startsWith("__transaction_state-"))
                                .toList()) {
                    deleteRecursively(p);
                }
            }
        }

        @Override
        int brokerId() {
            return 1;
        }

        @Override
        public void close() throws Exception {
            try {
                if (broker != null) {
                    broker.stop();
                }
            } finally {
                forwarder.close();
            }
        }
    }

    /** {@code tierlog serve} on a fixed port. */
    private static final class Tierlog extends TxnTarget {
        private final Path dir;
        private final int port;
        private Process process;
        private int starts;

        Tierlog(Path dir) throws IOException {
            this.dir = dir;
            this.port = freePort();
            Files.createDirectories(dir);
            restart();
        }

        @Override
        String bootstrap() {
            return "127.0.0.1:" + port;
        }

        @Override
        void kill() throws Exception {
            process.destroyForcibly();
            process.waitFor(60, TimeUnit.SECONDS);
        }

        @Override
        void restart() throws IOException {
            List<String> sets = new ArrayList<>();
            sets.add("advertised.listeners=PLAINTEXT://127.0.0.1:" + port);
            // Transactions only: no Iceberg tables for Streams' internal topics (with tables on,
            // StreamsEosIT once saw no aborted records for read_uncommitted; not yet explained).
            sets.add("iceberg.enabled=false");
            if (hasOption("TRANSACTION_COORDINATOR_ENABLE")) {
                // transactions are behind a switch until they are served by default
                sets.add("transaction.coordinator.enable=true");
            }
            process =
                    ServeProcess.start(
                            dir.resolve("serve-" + (starts++) + ".log"),
                            port,
                            dir.resolve("data"),
                            ServeProcess.QUICK_START,
                            sets.toArray(String[]::new));
        }

        private static boolean hasOption(String field) {
            try {
                ServerOptions.class.getField(field);
                return true;
            } catch (NoSuchFieldException e) {
                return false;
            }
        }

        @Override
        void deleteTransactionState() throws IOException {
            deleteRecursively(dir.resolve("data").resolve("meta").resolve("transactions"));
        }

        @Override
        int brokerId() {
            return 0;
        }

        @Override
        public void close() throws Exception {
            if (process != null && process.isAlive()) {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }
}
