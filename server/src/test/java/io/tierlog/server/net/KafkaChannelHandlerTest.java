package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.dispatch.RequestContext;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

/** Framing, ordering and bad-input behaviour of one connection, without sockets. */
class KafkaChannelHandlerTest {
    private final ApiRegistry registry =
            new ApiRegistry(
                    List.of(
                            handler(
                                    ApiKeys.API_VERSIONS,
                                    (short) 3,
                                    r -> registryRef()[0].apiVersions((short) 0)),
                            handler(
                                    ApiKeys.METADATA,
                                    (short) 12,
                                    r -> new MetadataResponseData())));
    private static final ApiRegistry[] REF = new ApiRegistry[1];

    private ApiRegistry[] registryRef() {
        REF[0] = registry;
        return REF;
    }

    interface Fn {
        ApiMessage apply(ApiMessage r);
    }

    static ApiHandler handler(ApiKeys key, short max, Fn fn) {
        return asyncHandler(key, max, r -> CompletableFuture.completedFuture(fn.apply(r)));
    }

    /** A handler whose answer {@code fn} completes, possibly later on another thread. */
    static ApiHandler asyncHandler(
            ApiKeys key, short max, Function<ApiMessage, CompletionStage<ApiMessage>> fn) {
        return new ApiHandler() {
            @Override
            public ApiKeys apiKey() {
                return key;
            }

            @Override
            public short maxVersion() {
                return max;
            }

            @Override
            public CompletionStage<ApiMessage> handle(RequestContext c, ApiMessage r) {
                return fn.apply(r);
            }
        };
    }

    private EmbeddedChannel channel(int maxFrame) {
        return new EmbeddedChannel(
                new KafkaFrameDecoder(maxFrame), new KafkaChannelHandler(registry));
    }

    @Test
    void negativeFrameSizeClosesTheConnection() {
        EmbeddedChannel ch = channel(1024);
        ch.writeInbound(Unpooled.buffer().writeInt(-5).writeInt(0));
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void frameLargerThanSocketRequestMaxBytesClosesBeforeReadingIt() {
        EmbeddedChannel ch = channel(1024);
        ch.writeInbound(Unpooled.buffer().writeInt(Integer.MAX_VALUE));
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void frameSplitAcrossReadsIsReassembledAndAnswered() throws Exception {
        EmbeddedChannel ch = channel(1 << 20);
        ByteBuf req =
                Frames.request(ApiKeys.API_VERSIONS, (short) 3, 42, new ApiVersionsRequestData());
        while (req.isReadable()) {
            ch.writeInbound(req.readRetainedSlice(Math.min(3, req.readableBytes())));
        }
        req.release();
        ByteBuffer out = Frames.drainOutbound(ch);
        out.getInt();
        assertThat(ResponseHeader.parse(out, (short) 0).correlationId()).isEqualTo(42);
        ApiVersionsResponseData r = new ApiVersionsResponseData();
        r.read(new ByteBufferAccessor(out), (short) 3);
        assertThat(r.errorCode()).isZero();
        assertThat(r.apiKeys().find(ApiKeys.METADATA.id).maxVersion()).isEqualTo((short) 12);
    }

    @Test
    void unsupportedApiVersionsVersionIsAnsweredWithV0AndTheSupportedList() throws Exception {
        EmbeddedChannel ch = channel(1 << 20);
        // A header of a future ApiVersions version: key, version, correlation id, client id.
        ByteBuf req = Unpooled.buffer();
        req.writeInt(2 + 2 + 4 + 2 + 1);
        req.writeShort(ApiKeys.API_VERSIONS.id).writeShort(99).writeInt(5).writeShort(1);
        req.writeByte('x');
        ch.writeInbound(req);
        ByteBuffer out = Frames.drainOutbound(ch);
        out.getInt();
        assertThat(out.getInt()).isEqualTo(5);
        ApiVersionsResponseData r = new ApiVersionsResponseData();
        r.read(new ByteBufferAccessor(out), (short) 0);
        assertThat(r.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(r.apiKeys()).isNotEmpty();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void unknownApiKeyClosesTheConnection() {
        EmbeddedChannel ch = channel(1 << 20);
        ByteBuf req = Unpooled.buffer();
        req.writeInt(10).writeShort(31000).writeShort(0).writeInt(1).writeShort(-1);
        ch.writeInbound(req);
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void unsupportedVersionOfAnotherApiClosesTheConnection() {
        EmbeddedChannel ch = channel(1 << 20);
        ch.writeInbound(Frames.request(ApiKeys.METADATA, (short) 13, 1, new MetadataRequestData()));
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void malformedBodyClosesTheConnection() {
        EmbeddedChannel ch = channel(1 << 20);
        ByteBuf req = Unpooled.buffer();
        // Metadata v1: header ok, then a topic array claiming 1,000,000 entries with no bytes.
        req.writeInt(2 + 2 + 4 + 2 + 4);
        req.writeShort(ApiKeys.METADATA.id).writeShort(1).writeInt(1).writeShort(-1);
        req.writeInt(1_000_000);
        ch.writeInbound(req);
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        EmbeddedChannel ch = channel(1 << 20);
        ByteBuf both = Unpooled.buffer();
        for (int i = 1; i <= 3; i++) {
            ByteBuf r = Frames.request(ApiKeys.METADATA, (short) 1, i, new MetadataRequestData());
            both.writeBytes(r);
            r.release();
        }
        ch.writeInbound(both);
        ByteBuffer out = Frames.drainOutbound(ch);
        for (int i = 1; i <= 3; i++) {
            int size = out.getInt();
            assertThat(out.getInt(out.position())).isEqualTo(i);
            out.position(out.position() + size);
        }
        assertThat(out.hasRemaining()).isFalse();
    }
}
