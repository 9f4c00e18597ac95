package io.tierlog.server.dispatch;

import io.netty.util.concurrent.EventExecutor;
import java.net.SocketAddress;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What a handler knows about the request beyond its body: the parsed header (API version,
 * correlation id, client id), the peer, and the event loop of the connection (where delayed work
 * should complete) and the future that completes when the connection closes (delayed work stops
 * then). Immutable.
 */
public record RequestContext(
        RequestHeader header,
        SocketAddress peer,
        EventExecutor executor,
        io.netty.util.concurrent.Future<?> closeFuture) {
    public short apiVersion() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId();
    }
}
