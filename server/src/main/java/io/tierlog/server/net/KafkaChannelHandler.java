package io.tierlog.server.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.dispatch.CloseConnectionException;
import io.tierlog.server.dispatch.RequestContext;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-connection request pipeline: parses each frame's header and body with kafka-clients'
 * generated classes, routes it to its {@link ApiHandler} and writes the response. Requests of one
 * connection are processed strictly in order (Kafka clients match responses by order as well as by
 * correlation id): while a handler is pending (a long-poll fetch), later frames wait in a queue.
 *
 * <p>Bad input, as Kafka treats it: an unknown API key, an unsupported version (except for
 * ApiVersions, which answers v0 with {@code UNSUPPORTED_VERSION} and the supported list) or a body
 * that does not parse closes this connection only. Kafka's broker closes for an API or version it
 * does not enable as well; the first such request of each client id, API and version is logged at
 * INFO ({@link UnsupportedRequestLog}), since a client that ignored ApiVersions sees only a closed
 * connection. One instance per channel; event-loop confined.
 *
 * <p>Nothing thrown while serving a request leaves this handler, {@link Error}s included (an {@link
 * InternalError} from a faulting mapped page, an {@link OutOfMemoryError} from direct buffers): the
 * request's connection is closed with a WARN and the event loop, which serves many other
 * connections, goes on. A storage fault itself never gets here as a throwable: the log answers
 * {@code KAFKA_STORAGE_ERROR} for the partition.
 */
final class KafkaChannelHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(KafkaChannelHandler.class);

    /** Frames read ahead while a request is pending before reading pauses. */
    private static final int MAX_QUEUED = 64;

    private final ApiRegistry registry;
    private final UnsupportedRequestLog unsupported;
    private final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
    private boolean busy;
    private boolean closed;

    public KafkaChannelHandler(ApiRegistry registry) {
        this(registry, new UnsupportedRequestLog());
    }

    /** A handler reporting unsupported requests to {@code unsupported}, shared by connections. */
    KafkaChannelHandler(ApiRegistry registry, UnsupportedRequestLog unsupported) {
        this.registry = registry;
        this.unsupported = unsupported;
    }

    /**
     * The client id of a request header of version 1 or 2 (every API but ControlledShutdown v0): a
     * nullable int16-length string after API key, version and correlation id. Read by hand because
     * the header of an unsupported version may not parse; null when absent or malformed.
     */
    static String clientId(ByteBuffer nio) {
        int at = nio.position() + 8;
        if (nio.limit() < at + 2) {
            return null;
        }
        int len = nio.getShort(at);
        if (len < 0 || nio.limit() < at + 2 + len) {
            return null;
        }
        byte[] b = new byte[len];
        nio.get(at + 2, b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            read(ctx, msg);
        } catch (Throwable t) { // every kind: the event loop serves other connections too
            fail(ctx, "internal error reading from " + ctx.channel().remoteAddress(), t);
        }
    }

    private void read(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (closed) {
            frame.release();
        } else if (busy) {
            queued.add(frame);
            if (queued.size() >= MAX_QUEUED) {
                // Like Kafka's muted channel: stop reading until the pending request completes.
                ReadGate.set(ctx.channel(), ReadGate.Reason.BACKLOG, true);
            }
        } else {
            process(ctx, frame);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    private void drain(ChannelHandlerContext ctx) {
        while (!busy && !closed && !queued.isEmpty()) {
            process(ctx, queued.poll());
        }
        ctx.flush();
        if (!busy && !closed) {
            ReadGate.set(ctx.channel(), ReadGate.Reason.BACKLOG, false);
        }
    }

    private void process(ChannelHandlerContext ctx, ByteBuf frame) {
        ByteBuffer nio = frame.nioBuffer();
        RequestHeader header;
        ApiHandler handler;
        ApiMessage request;
        try {
            if (nio.remaining() < 4) {
                throw new IllegalArgumentException("frame of " + nio.remaining() + " bytes");
            }
            short apiKey = nio.getShort(0);
            short version = nio.getShort(2);
            if (!ApiKeys.hasId(apiKey)) {
                unsupported.record(
                        clientId(nio),
                        "unknown API key " + apiKey,
                        version,
                        null,
                        ctx.channel().remoteAddress());
                throw new IllegalArgumentException("unknown API key " + apiKey);
            }
            handler = registry.handler(apiKey).orElse(null);
            if (handler == null) {
                unsupported.record(
                        clientId(nio),
                        ApiKeys.forId(apiKey).name,
                        version,
                        null,
                        ctx.channel().remoteAddress());
                throw new IllegalArgumentException("API " + ApiKeys.forId(apiKey) + " not served");
            }
            if (version < handler.minVersion() || version > handler.maxVersion()) {
                if (apiKey == ApiKeys.API_VERSIONS.id) {
                    // version negotiation, not a failure: clients start with their newest
                    answerUnsupportedApiVersions(ctx, nio, frame);
                    return;
                }
                unsupported.record(
                        clientId(nio),
                        ApiKeys.forId(apiKey).name,
                        version,
                        handler.minVersion() + "-" + handler.maxVersion(),
                        ctx.channel().remoteAddress());
                throw new UnsupportedVersionException(
                        ApiKeys.forId(apiKey) + " version " + version + " not supported");
            }
            header = RequestHeader.parse(nio);
            request = ApiMessageType.fromApiKey(apiKey).newRequest();
            request.read(new ByteBufferAccessor(nio), version);
        } catch (RuntimeException e) {
            frame.release();
            log.debug(
                    "bad request from {}: {}; closing",
                    ctx.channel().remoteAddress(),
                    e.toString());
            closeNow(ctx);
            return;
        }
        RequestContext rc =
                new RequestContext(
                        header,
                        ctx.channel().remoteAddress(),
                        ctx.executor(),
                        ctx.channel().closeFuture());
        CompletionStage<ApiMessage> stage;
        try {
            stage = handler.handle(rc, request);
        } catch (Throwable e) { // Errors too: answered by closing this connection only
            stage = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<ApiMessage> f = stage.toCompletableFuture();
        if (f.isDone() && ctx.executor().inEventLoop()) {
            complete(ctx, frame, header, f, false);
        } else {
            busy = true;
            f.whenComplete(
                    (r, e) ->
                            ctx.executor()
                                    .execute(
                                            () -> {
                                                try {
                                                    busy = false;
                                                    complete(ctx, frame, header, f, true);
                                                    drain(ctx);
                                                } catch (Throwable t) {
                                                    fail(ctx, serving(ctx, header), t);
                                                }
                                            }));
        }
    }

    private void complete(
            ChannelHandlerContext ctx,
            ByteBuf frame,
            RequestHeader header,
            CompletableFuture<ApiMessage> f,
            boolean flush) {
        try {
            ApiMessage response = f.join();
            if (response != null) {
                registry.errorLog().responded(header, ctx.channel().remoteAddress(), response);
            }
            if (response != null && !closed) {
                List<Object> parts =
                        ResponseEncoder.encode(
                                ctx.alloc(),
                                header.correlationId(),
                                header.apiKey().responseHeaderVersion(header.apiVersion()),
                                response,
                                header.apiVersion());
                for (Object p : parts) {
                    ctx.write(p, ctx.voidPromise());
                }
                if (flush) {
                    ctx.flush();
                }
            }
        } catch (Throwable e) {
            fail(ctx, serving(ctx, header), e);
        } finally {
            frame.release();
        }
    }

    /** Names a request in a log line as an operator searches for it: API, client, peer. */
    private static String serving(ChannelHandlerContext ctx, RequestHeader header) {
        return "internal error serving "
                + header.apiKey().name
                + " v"
                + header.apiVersion()
                + " (correlation id "
                + header.correlationId()
                + ") from client '"
                + header.clientId()
                + "' at "
                + ctx.channel().remoteAddress();
    }

    /** Kafka's answer to ApiVersions of a version it does not know: v0 body, error 35. */
    private void answerUnsupportedApiVersions(
            ChannelHandlerContext ctx, ByteBuffer nio, ByteBuf frame) {
        try {
            // Header v1 prefix: api key, version, correlation id; enough to answer.
            int correlationId = nio.getInt(4);
            List<Object> parts =
                    ResponseEncoder.encode(
                            ctx.alloc(),
                            correlationId,
                            (short) 0,
                            registry.apiVersions(Errors.UNSUPPORTED_VERSION.code()),
                            (short) 0);
            for (Object p : parts) {
                ctx.write(p, ctx.voidPromise());
            }
        } catch (Throwable e) {
            fail(ctx, "bad ApiVersions request", e);
        } finally {
            frame.release();
        }
    }

    private void fail(ChannelHandlerContext ctx, String what, Throwable e) {
        Throwable cause =
                e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                        ? e.getCause()
                        : e;
        if (cause instanceof CloseConnectionException) {
            log.debug("{}: {}; closing connection", what, cause.getMessage());
            closeNow(ctx);
            return;
        }
        if (e instanceof java.io.IOException
                || e instanceof io.netty.handler.codec.DecoderException) {
            // the connection's own I/O (a reset peer), not a handler's
            log.debug("{}: {}; closing connection", what, e.toString());
        } else {
            // the handler's own exception, not the future's wrapper: one stack, once
            log.warn("{}; closing connection", what, cause);
        }
        closeNow(ctx);
    }

    private void closeNow(ChannelHandlerContext ctx) {
        closed = true;
        try {
            releaseQueued();
            ctx.flush();
        } finally {
            ctx.close();
        }
    }

    private void releaseQueued() {
        ByteBuf b;
        while ((b = queued.poll()) != null) {
            ReferenceCountUtil.release(b);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // Stop reading requests while the peer does not read responses (slow consumer).
        ReadGate.set(ctx.channel(), ReadGate.Reason.UNWRITABLE, !ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        releaseQueued();
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            log.debug("closing idle connection {}", ctx.channel().remoteAddress());
            closeNow(ctx);
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, "connection " + ctx.channel().remoteAddress(), cause);
    }
}
