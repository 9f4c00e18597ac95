/**
 * Network and framing: the Netty listeners ({@link io.tierlog.server.net.NettyServer}), the size
 * prefixed Kafka frame decoder with its request memory bound, connection limits, backpressure
 * ({@code ReadGate}) and response encoding, including the zero-copy path for file-backed records
 * ({@link io.tierlog.server.net.ZeroCopyRecords}).
 *
 * <p>Rules: the only package that touches sockets and Netty channels (the request context still
 * carries the connection's event loop, for delayed work). It parses the request header and hands
 * the body to the handler that {@link io.tierlog.server.dispatch.ApiRegistry} routes to; it knows
 * no API area. Everything but the server, the memory pool and the zero-copy contract is
 * package-private.
 */
package io.tierlog.server.net;
