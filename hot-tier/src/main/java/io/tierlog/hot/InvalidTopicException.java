package io.tierlog.hot;

/** A topic name that Kafka would refuse (see {@link TopicNames}). Immutable. */
public final class InvalidTopicException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidTopicException(String message) {
        super(message);
    }
}
