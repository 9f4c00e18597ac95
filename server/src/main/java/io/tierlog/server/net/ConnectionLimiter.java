package io.tierlog.server.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces {@code max.connections}: a connection beyond the limit is closed as soon as it is
 * accepted, before it can send anything. Shared by all channels; thread-safe.
 */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionLimiter.class);
    private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf("tierlog.counted");

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionLimiter(int max) {
        this.max = max;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            log.warn(
                    "refusing connection from {}: max.connections={} reached",
                    ctx.channel().remoteAddress(),
                    max);
            ctx.close();
            return;
        }
        ctx.channel().attr(COUNTED).set(Boolean.TRUE);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (ctx.channel().attr(COUNTED).getAndSet(null) != null) {
            open.decrementAndGet();
        }
        ctx.fireChannelInactive();
    }

    /** Connections currently open. */
    public int openConnections() {
        return open.get();
    }
}
