package io.tierlog.cold.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP/1.1 proxy on loopback that forwards requests to an S3 endpoint (e.g. {@code
 * EmbeddedS3Server}) and injects faults on demand, so that tests can show the object store and the
 * compactor retry and recover. Requests pass unchanged (SigV4 signatures stay valid: the client
 * signs the proxy's host); every exchange uses its own connections ({@code Connection: close}).
 *
 * <p>Knobs (all take effect for the next request):
 *
 * <ul>
 *   <li>{@link #failNext(int, int)}: answer the next n requests with an S3 error of that status
 *       (500 InternalError, 503 SlowDown, ...) without forwarding them;
 *   <li>{@link #failAfter(int, int)}: let n more requests through, then fail every request until
 *       {@link #heal()};
 *   <li>{@link #failEvery(int, int)}: fail every k-th request;
 *   <li>{@link #corruptNextRequestBodies(int)} / {@link #corruptNextResponseBodies(int)}: flip a
 *       byte in flight, to show that checksums catch it;
 *   <li>{@link #delayNext(int, Duration)} / {@link #delayAll(Duration)}: hold responses back;
 *   <li>{@link #resetNextConnections(int)}: accept and immediately reset the next n connections;
 *   <li>{@link #goDown()} / {@link #comeUp()}: stop listening (connections are refused) and listen
 *       again on the same port;
 *   <li>{@link #heal()}: clear every fault.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class FaultInjectingProxy implements Closeable {
    private final String upstreamHost;
    private final int upstreamPort;
    private final int port;
    private final ExecutorService pool = Executors.newCachedThreadPool(daemon());
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicReference<ServerSocket> server = new AtomicReference<>();

    private final AtomicInteger failNext = new AtomicInteger();
    private volatile int failNextStatus = 503;
    private final AtomicInteger passBeforeFailing = new AtomicInteger(-1);
    private volatile int failAfterStatus = 503;
    private final AtomicInteger delayNext = new AtomicInteger();
    private volatile Duration delayNextBy = Duration.ZERO;
    private volatile Duration delayAll = Duration.ZERO;
    private final AtomicInteger resetNext = new AtomicInteger();
    private volatile int failEvery;
    private final AtomicInteger corruptRequests = new AtomicInteger();
    private final AtomicInteger corruptResponses = new AtomicInteger();
    private volatile int failEveryStatus = 503;

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong injectedFailures = new AtomicLong();
    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong resets = new AtomicLong();
    private volatile boolean closed;
    // Set before the listening socket closes: a connection accepted just before (still in the
    // backlog, or between accept and registration) is dropped unserved instead of forwarded.
    private volatile boolean down;

    private FaultInjectingProxy(URI upstream, ServerSocket socket) {
        this.upstreamHost = upstream.getHost();
        this.upstreamPort = upstream.getPort();
        this.port = socket.getLocalPort();
        server.set(socket);
        startAccepting(socket);
    }

    /** Starts a proxy to {@code upstream} (an {@code http://host:port} URL) on a free port. */
    public static FaultInjectingProxy start(URI upstream) throws IOException {
        return new FaultInjectingProxy(upstream, bind(0));
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    /** The proxy's URL, to use as {@code s3.endpoint}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public void failNext(int n, int status) {
        failNextStatus = status;
        failNext.set(n);
    }

    public void failAfter(int n, int status) {
        failAfterStatus = status;
        passBeforeFailing.set(n);
    }

    /** Fails every k-th request from now on (k >= 2), until {@link #heal()}. */
    public void failEvery(int k, int status) {
        if (k < 2) {
            throw new IllegalArgumentException("k must be at least 2");
        }
        failEveryStatus = status;
        failEvery = k;
    }

    /** Flips one byte in the middle of the body of the next n requests that have a body. */
    public void corruptNextRequestBodies(int n) {
        corruptRequests.set(n);
    }

    /** Flips one byte in the middle of the body of the next n responses that have a body. */
    public void corruptNextResponseBodies(int n) {
        corruptResponses.set(n);
    }

    public void delayNext(int n, Duration delay) {
        delayNextBy = delay;
        delayNext.set(n);
    }

    public void delayAll(Duration delay) {
        delayAll = delay;
    }

    public void resetNextConnections(int n) {
        resetNext.set(n);
    }

    /** Clears every fault (does not bring a downed proxy back up; see {@link #comeUp()}). */
    public void heal() {
        failNext.set(0);
        passBeforeFailing.set(-1);
        delayNext.set(0);
        delayAll = Duration.ZERO;
        resetNext.set(0);
        failEvery = 0;
        corruptRequests.set(0);
        corruptResponses.set(0);
    }

    /** Stops listening and drops open connections: new connections are refused. */
    public synchronized void goDown() throws IOException {
        down = true;
        ServerSocket s = server.getAndSet(null);
        if (s != null) {
            s.close();
        }
        for (Socket c : open) {
            closeQuietly(c);
        }
    }

    /** Listens again on the same port. */
    public synchronized void comeUp() throws IOException {
        if (server.get() == null && !closed) {
            down = false;
            ServerSocket s = bind(port);
            server.set(s);
            startAccepting(s);
        }
    }

    /** Requests received (including failed and delayed ones). */
    public long requestCount() {
        return requests.get();
    }

    /** Requests answered with an injected error. */
    public long injectedFailures() {
        return injectedFailures.get();
    }

    /** Requests forwarded to the upstream. */
    public long forwardedCount() {
        return forwarded.get();
    }

    /** Connections reset on purpose. */
    public long resetCount() {
        return resets.get();
    }

    private void startAccepting(ServerSocket s) {
        pool.execute(
                () -> {
                    while (!s.isClosed()) {
                        Socket c;
                        try {
                            c = s.accept();
                        } catch (IOException e) {
                            return;
                        }
                        if (decrementIfPositive(resetNext)) {
                            resets.incrementAndGet();
                            try {
                                c.setSoLinger(true, 0);
                            } catch (SocketException ignored) {
                                // closing is enough
                            }
                            closeQuietly(c);
                            continue;
                        }
                        open.add(c);
                        pool.execute(() -> serve(c));
                    }
                });
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            Request req = readRequest(in, out);
            if (req == null) {
                return;
            }
            long n = requests.incrementAndGet();
            if (down) {
                return; // closed unanswered, as a server going away does
            }
            int status = 0;
            int every = failEvery;
            if (every > 0 && n % every == 0) {
                status = failEveryStatus;
            } else if (decrementIfPositive(failNext)) {
                status = failNextStatus;
            } else {
                int pass = passBeforeFailing.get();
                if (pass == 0) {
                    status = failAfterStatus;
                } else if (pass > 0) {
                    passBeforeFailing.decrementAndGet();
                }
            }
            Duration delay = delayAll;
            if (decrementIfPositive(delayNext)) {
                delay = delayNextBy;
            }
            if (!delay.isZero()) {
                Thread.sleep(delay.toMillis());
            }
            if (status != 0) {
                injectedFailures.incrementAndGet();
                writeError(out, status);
                return;
            }
            forwarded.incrementAndGet();
            forward(req, out);
        } catch (IOException | InterruptedException e) {
            // client or upstream went away: nothing to do
        } finally {
            open.remove(client);
        }
    }

    private record Request(String head, byte[] body) {}

    private static Request readRequest(InputStream in, OutputStream out) throws IOException {
        String head = readHead(in);
        if (head == null) {
            return null;
        }
        List<String> lines = new ArrayList<>(List.of(head.split("\r\n")));
        long length = 0;
        boolean chunked = false;
        boolean expectContinue = false;
        StringBuilder rewritten = new StringBuilder(lines.get(0)).append("\r\n");
        for (String line : lines.subList(1, lines.size())) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(line.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("expect:")) {
                expectContinue = lower.contains("100-continue");
                continue;
            } else if (lower.startsWith("connection:")) {
                continue;
            }
            rewritten.append(line).append("\r\n");
        }
        rewritten.append("Connection: close\r\n\r\n");
        if (expectContinue) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        byte[] body = chunked ? readChunked(in) : in.readNBytes((int) length);
        return new Request(rewritten.toString(), body);
    }

    /** Reads up to and including the blank line; null at EOF before any byte. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int last4 = 0;
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            last4 = (last4 << 8) | c;
            if (last4 == 0x0d0a0d0a) {
                break;
            }
        }
        if (b.size() == 0) {
            return null;
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r\n\r\n") ? s.substring(0, s.length() - 4) : s;
    }

    /** Reads a chunked body and returns it re-encoded as chunked (forwarded verbatim). */
    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine(in);
            raw.writeBytes((sizeLine + "\r\n").getBytes(StandardCharsets.US_ASCII));
            int semi = sizeLine.indexOf(';');
            int size =
                    Integer.parseInt(
                            (semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            if (size == 0) {
                String trailer;
                while (!(trailer = readLine(in)).isEmpty()) {
                    raw.writeBytes((trailer + "\r\n").getBytes(StandardCharsets.US_ASCII));
                }
                raw.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                return raw.toByteArray();
            }
            raw.writeBytes(in.readNBytes(size));
            readLine(in);
            raw.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private void forward(Request req, OutputStream out) throws IOException {
        try (Socket up = new Socket(upstreamHost, upstreamPort)) {
            OutputStream upOut = up.getOutputStream();
            upOut.write(req.head().getBytes(StandardCharsets.ISO_8859_1));
            byte[] body = req.body();
            if (body.length > 0 && decrementIfPositive(corruptRequests)) {
                body = body.clone();
                body[body.length / 2] ^= 0x55;
            }
            upOut.write(body);
            upOut.flush();
            InputStream upIn = up.getInputStream();
            String head = readHead(upIn);
            if (head == null) {
                return;
            }
            StringBuilder h = new StringBuilder();
            for (String line : head.split("\r\n")) {
                if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
                    h.append(line).append("\r\n");
                }
            }
            h.append("Connection: close\r\n\r\n");
            out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
            byte[] rest = upIn.readAllBytes();
            if (rest.length > 0 && decrementIfPositive(corruptResponses)) {
                rest[rest.length / 2] ^= 0x55;
            }
            out.write(rest);
            out.flush();
        }
    }

    private static void writeError(OutputStream out, int status) throws IOException {
        String code =
                status == 503 ? "SlowDown" : status == 500 ? "InternalError" : "InjectedFault";
        String reason =
                status == 503
                        ? "Service Unavailable"
                        : status == 500 ? "Internal Server Error" : "Error";
        String body =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                        + code
                        + "</Code><Message>injected by FaultInjectingProxy</Message></Error>";
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head =
                "HTTP/1.1 "
                        + status
                        + " "
                        + reason
                        + "\r\nContent-Type: application/xml\r\nContent-Length: "
                        + b.length
                        + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
    }

    private static boolean decrementIfPositive(AtomicInteger a) {
        while (true) {
            int v = a.get();
            if (v <= 0) {
                return false;
            }
            if (a.compareAndSet(v, v - 1)) {
                return true;
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static java.util.concurrent.ThreadFactory daemon() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "fault-proxy-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void close() throws IOException {
        closed = true;
        goDown();
        pool.shutdownNow();
    }
}
