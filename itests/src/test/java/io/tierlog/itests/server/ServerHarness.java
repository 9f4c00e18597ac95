package io.tierlog.itests.server;

import io.tierlog.common.Config;
import io.tierlog.server.TierlogServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A tierlog server running in this JVM on a loopback port, restartable on the same port and data
 * dir (so connected clients reconnect to the new instance). Not thread-safe.
 */
final class ServerHarness implements AutoCloseable {
    private final Path dataDir;
    private final Map<String, String> settings;
    private TierlogServer server;
    private int port;

    ServerHarness(Path dataDir, Map<String, String> extra) throws IOException {
        this.dataDir = dataDir;
        this.settings = new HashMap<>(extra);
        start(0);
    }

    private void start(int p) throws IOException {
        Map<String, String> s = new HashMap<>(settings);
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + p);
        s.putIfAbsent("schema.registry.listen", "127.0.0.1:0"); // any free port
        s.put("data.dir", dataDir.toString());
        s.putIfAbsent("num.network.threads", "2");
        server = TierlogServer.start(Config.of(s));
        port = server.port();
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    TierlogServer server() {
        return server;
    }

    /** Graceful stop, then a new instance on the same port and data dir. */
    void restart() throws IOException {
        server.close();
        start(port);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
