package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A real server with two event loops whose handlers throw {@link Error}s (as a SIGBUS from a mapped
 * page surfaces, or direct memory running out), inline on the event loop and later from another
 * thread: only the offending connection is closed, and every event loop keeps serving new
 * connections (before the fix, a dead event loop force-closed every connection assigned to it).
 */
class HandlerErrorsDoNotKillEventLoopsIT {
    private static final ApiRegistry[] REF = new ApiRegistry[1];
    private final NettyServer server;
    private final InetSocketAddress address;

    HandlerErrorsDoNotKillEventLoopsIT() throws IOException {
        REF[0] =
                new ApiRegistry(
                        List.of(
                                KafkaChannelHandlerTest.handler(
                                        ApiKeys.API_VERSIONS,
                                        (short) 3,
                                        r -> REF[0].apiVersions((short) 0)),
                                KafkaChannelHandlerTest.handler(
                                        ApiKeys.METADATA,
                                        (short) 12,
                                        r -> {
                                            throw new InternalError(
                                                    "a fault occurred in a recent unsafe memory"
                                                            + " access operation");
                                        }),
                                asyncFailing(),
                                responseFailing()));
        server =
                NettyServer.start(
                        new NettyServer.Settings(
                                2,
                                false,
                                1 << 20,
                                1000,
                                Duration.ofMinutes(1),
                                64L << 20,
                                Duration.ofSeconds(30)),
                        REF[0],
                        List.of(new InetSocketAddress("127.0.0.1", 0)));
        address = server.boundAddresses().get(0);
    }

    /** DescribeCluster: completes later, on another thread, with an OutOfMemoryError. */
    private static ApiHandler asyncFailing() {
        return KafkaChannelHandlerTest.asyncHandler(
                ApiKeys.DESCRIBE_CLUSTER,
                (short) 0,
                r ->
                        CompletableFuture.supplyAsync(
                                () -> {
                                    throw new OutOfMemoryError("Direct buffer memory");
                                }));
    }

    /**
     * ListGroups: a response, completed on another thread, whose serialisation throws an Error on
     * the event loop (where the connection used to stay open and silent for ever).
     */
    private static ApiHandler responseFailing() {
        ApiMessage response =
                new ListGroupsResponseData() {
                    @Override
                    public int size(ObjectSerializationCache cache, short version) {
                        throw new InternalError("fault while encoding");
                    }
                };
        return KafkaChannelHandlerTest.asyncHandler(
                ApiKeys.LIST_GROUPS, (short) 4, r -> CompletableFuture.supplyAsync(() -> response));
    }

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void anErrorThrownByAHandlerClosesOnlyItsConnection() throws Exception {
        for (int round = 0; round < 4; round++) {
            // every new connection lands on the next event loop: hit both with each kind
            assertClosedAfter(ApiKeys.METADATA, (short) 1, new MetadataRequestData());
            assertClosedAfter(
                    ApiKeys.DESCRIBE_CLUSTER, (short) 0, new DescribeClusterRequestData());
            assertClosedAfter(ApiKeys.LIST_GROUPS, (short) 1, new ListGroupsRequestData());
        }
        for (int i = 0; i < 20; i++) {
            try (Socket s = connect()) {
                ApiVersionsResponseData r = apiVersions(s, 100 + i);
                assertThat(r.errorCode()).isZero();
            }
        }
        // and a connection that saw nothing bad keeps working across several requests
        try (Socket s = connect()) {
            for (int i = 0; i < 3; i++) {
                assertThat(apiVersions(s, i).errorCode()).isZero();
            }
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(address, 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    private void assertClosedAfter(ApiKeys key, short version, ApiMessage body) throws Exception {
        try (Socket s = connect()) {
            send(s, key, version, 7, body);
            DataInputStream in = new DataInputStream(s.getInputStream());
            boolean closed;
            try {
                in.readInt();
                closed = false;
            } catch (EOFException | java.net.SocketException e) {
                closed = true;
            }
            assertThat(closed).as("connection closed after %s threw", key).isTrue();
        }
    }

    private static void send(Socket s, ApiKeys key, short version, int corr, ApiMessage body)
            throws IOException {
        ByteBuf b = Frames.request(key, version, corr, body);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        OutputStream out = s.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    private static ApiVersionsResponseData apiVersions(Socket s, int corr) throws IOException {
        send(s, ApiKeys.API_VERSIONS, (short) 3, corr, new ApiVersionsRequestData());
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer buf = ByteBuffer.wrap(frame);
        assertThat(ResponseHeader.parse(buf, (short) 0).correlationId()).isEqualTo(corr);
        ApiVersionsResponseData r = new ApiVersionsResponseData();
        r.read(new ByteBufferAccessor(buf), (short) 3);
        return r;
    }
}
