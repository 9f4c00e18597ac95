package io.tierlog.catalog;

/**
 * {@link Catalog#createTopic} found a topic of that name with a different partition count or
 * different configs (creating it again with the same settings is not an error). Immutable, so
 * thread-safe.
 */
public class TopicConflictException extends CatalogException {
    private static final long serialVersionUID = 1L;

    private final TopicRecord existing;

    public TopicConflictException(String message, TopicRecord existing) {
        super(message);
        this.existing = existing;
    }

    /** The topic as the catalog holds it. */
    public TopicRecord existing() {
        return existing;
    }
}
