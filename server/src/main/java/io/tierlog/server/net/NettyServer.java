package io.tierlog.server.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tierlog.server.dispatch.ApiRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty side of the server: event loops (epoll when available, else NIO), one server channel
 * per listener, and the per-connection pipeline: idle timeout, connection limit, frame decoder
 * (request memory pool shared by all connections, receive deadline), request handler. Thread-safe;
 * {@link #close()} stops accepting, closes every connection and stops the loops.
 */
public final class NettyServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NettyServer.class);

    /** Settings of the network layer. */
    public record Settings(
            int threads,
            boolean epoll,
            int maxFrameBytes,
            int maxConnections,
            Duration idleTimeout,
            long queuedMaxRequestBytes,
            Duration requestReceiveTimeout) {}

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final List<Channel> serverChannels = new ArrayList<>();
    private final ConnectionLimiter limiter;
    private final RequestMemoryPool requestMemory;
    private final boolean usingEpoll;

    private NettyServer(Settings s) {
        this.usingEpoll = s.epoll() && Epoll.isAvailable();
        IoHandlerFactory factory =
                usingEpoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        int threads = s.threads() > 0 ? s.threads() : Runtime.getRuntime().availableProcessors();
        this.boss = new MultiThreadIoEventLoopGroup(1, factory);
        this.workers = new MultiThreadIoEventLoopGroup(threads, factory);
        this.limiter = new ConnectionLimiter(s.maxConnections());
        this.requestMemory = new RequestMemoryPool(s.queuedMaxRequestBytes());
    }

    /** Binds every address; on failure closes what was opened. */
    public static NettyServer start(
            Settings s, ApiRegistry registry, List<InetSocketAddress> addresses)
            throws IOException {
        NettyServer server = new NettyServer(s);
        try {
            server.bind(s, registry, addresses);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void bind(Settings s, ApiRegistry registry, List<InetSocketAddress> addresses)
            throws IOException {
        Class<? extends ServerChannel> channelType =
                usingEpoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        long idleMs = s.idleTimeout().toMillis();
        UnsupportedRequestLog unsupported = new UnsupportedRequestLog();
        ServerBootstrap b =
                new ServerBootstrap()
                        .group(boss, workers)
                        .channel(channelType)
                        .option(ChannelOption.SO_BACKLOG, 1024)
                        .option(ChannelOption.SO_REUSEADDR, true)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childOption(ChannelOption.SO_KEEPALIVE, true)
                        .childOption(
                                ChannelOption.WRITE_BUFFER_WATER_MARK,
                                new WriteBufferWaterMark(8 << 20, 64 << 20))
                        .childHandler(
                                new ChannelInitializer<SocketChannel>() {
                                    @Override
                                    protected void initChannel(SocketChannel ch) {
                                        channels.add(ch);
                                        ch.pipeline()
                                                .addLast(
                                                        "idle",
                                                        new IdleStateHandler(
                                                                0,
                                                                0,
                                                                idleMs,
                                                                TimeUnit.MILLISECONDS))
                                                .addLast("limit", limiter)
                                                .addLast(
                                                        "frames",
                                                        new KafkaFrameDecoder(
                                                                s.maxFrameBytes(),
                                                                requestMemory,
                                                                s.requestReceiveTimeout()))
                                                .addLast(
                                                        "requests",
                                                        new KafkaChannelHandler(
                                                                registry, unsupported));
                                    }
                                });
        for (InetSocketAddress a : addresses) {
            try {
                Channel ch = b.bind(a).sync().channel();
                serverChannels.add(ch);
                log.info("listening on {} ({})", ch.localAddress(), usingEpoll ? "epoll" : "nio");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while binding " + a, e);
            } catch (Exception e) {
                // A BindException (an IOException), so that the CLI can say "port in use" in one
                // line whatever the transport (NIO or epoll) threw.
                java.net.BindException be =
                        new java.net.BindException("cannot bind " + a + ": " + e.getMessage());
                be.initCause(e);
                throw be;
            }
        }
    }

    /** Bound addresses, in listener order (the real port when 0 was asked). */
    public List<InetSocketAddress> boundAddresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (Channel ch : serverChannels) {
            out.add((InetSocketAddress) ch.localAddress());
        }
        return out;
    }

    public boolean usingEpoll() {
        return usingEpoll;
    }

    /**
     * The pool bounding the memory of requests being received ({@code queued.max.request.bytes}).
     */
    public RequestMemoryPool requestMemory() {
        return requestMemory;
    }

    public int openConnections() {
        return limiter.openConnections();
    }

    /** Stops accepting connections (first step of a graceful shutdown). */
    public void stopAccepting() {
        for (Channel ch : serverChannels) {
            ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        stopAccepting();
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 5, TimeUnit.SECONDS)
                .awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
