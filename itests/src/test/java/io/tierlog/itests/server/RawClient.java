package io.tierlog.itests.server;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A minimal Kafka wire client over a blocking socket, for exact protocol checks: sends one request
 * with kafka-clients' generated messages and reads the matching response. Not thread-safe.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket = new Socket();
    private final DataInputStream in;
    private final OutputStream out;
    private int correlation;

    public RawClient(int port) throws IOException {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(60_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** A request frame: size, header (client id "raw"), body. */
    public static byte[] frame(ApiKeys key, short version, int correlationId, ApiMessage body) {
        return frame(key, version, correlationId, body, "raw");
    }

    /** A request frame from {@code clientId}. */
    public static byte[] frame(
            ApiKeys key, short version, int correlationId, ApiMessage body, String clientId) {
        RequestHeaderData h =
                new RequestHeaderData()
                        .setRequestApiKey(key.id)
                        .setRequestApiVersion(version)
                        .setCorrelationId(correlationId)
                        .setClientId(clientId);
        short hv = key.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = h.size(cache, hv) + body.size(cache, version);
        ByteBuffer b = ByteBuffer.allocate(4 + size);
        b.putInt(size);
        ByteBufferAccessor w = new ByteBufferAccessor(b);
        h.write(w, cache, hv);
        body.write(w, cache, version);
        return b.array();
    }

    /** Sends a request without waiting (acks=0 produce, pipelining). Returns its correlation id. */
    int send(ApiKeys key, short version, ApiMessage body) throws IOException {
        int id = ++correlation;
        out.write(frame(key, version, id, body));
        out.flush();
        return id;
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads the next response, checks its correlation id, and parses the body. */
    <T extends ApiMessage> T receive(ApiKeys key, short version, int correlationId, T body)
            throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        ResponseHeader h = ResponseHeader.parse(b, key.responseHeaderVersion(version));
        if (h.correlationId() != correlationId) {
            throw new AssertionError(
                    "correlation id " + h.correlationId() + ", expected " + correlationId);
        }
        body.read(new ByteBufferAccessor(b), version);
        return body;
    }

    public <T extends ApiMessage> T call(ApiKeys key, short version, ApiMessage request, T response)
            throws IOException {
        return receive(key, version, send(key, version, request), response);
    }

    /** True when the server has closed the connection (reads EOF within the socket timeout). */
    boolean closedByServer() {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    void setTimeout(int ms) throws IOException {
        socket.setSoTimeout(ms);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
