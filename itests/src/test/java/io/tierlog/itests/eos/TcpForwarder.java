package io.tierlog.itests.eos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

/**
 * A loopback TCP port that forwards each connection to the port {@code target} names when the
 * connection is accepted: a stable address for a server that picks a new port at each start (the
 * Kafka broker of {@link TxnTarget#kafka}, which advertises this port). A connection ends when
 * either side closes it. Thread-safe; one daemon thread per direction of each connection.
 */
final class TcpForwarder implements AutoCloseable {
    private final ServerSocket server;
    private final IntSupplier target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    TcpForwarder(IntSupplier target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "forwarder-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress("127.0.0.1", target.getAsInt()), 2000);
            } catch (IOException | RuntimeException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue; // the server is down: the client sees a closed connection and retries
            }
            open.add(client);
            open.add(upstream);
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t =
                new Thread(
                        () -> {
                            byte[] buf = new byte[64 << 10];
                            try (InputStream in = from.getInputStream();
                                    OutputStream out = to.getOutputStream()) {
                                int n;
                                while ((n = in.read(buf)) >= 0) {
                                    out.write(buf, 0, n);
                                }
                            } catch (IOException e) {
                                // either side gone: close both
                            } finally {
                                closeQuietly(from);
                                closeQuietly(to);
                                open.remove(from);
                                open.remove(to);
                            }
                        },
                        "forward-" + from.getPort());
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
