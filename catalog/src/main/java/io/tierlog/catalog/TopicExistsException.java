package io.tierlog.catalog;

/**
 * {@link Catalog#createTopic} found a topic of that name with a different partition count or
 * different configs. Immutable, so thread-safe.
 */
public class TopicExistsException extends CatalogException {
    private static final long serialVersionUID = 1L;

    private final TopicRecord existing;

    public TopicExistsException(String message, TopicRecord existing) {
        super(message);
        this.existing = existing;
    }

    /** The topic as the catalog holds it. */
    public TopicRecord existing() {
        return existing;
    }
}
