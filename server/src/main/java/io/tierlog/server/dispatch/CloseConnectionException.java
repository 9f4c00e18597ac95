package io.tierlog.server.dispatch;

/**
 * Thrown (or used to complete a handler's stage) when the protocol's answer is to close the
 * connection rather than to respond, as Kafka does for a failed {@code acks=0} produce: the client
 * sees the disconnect and refreshes its metadata. Logged at debug level only. Immutable.
 */
public final class CloseConnectionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CloseConnectionException(String message) {
        super(message, null, false, false);
    }
}
