package io.tierlog.hot;

/**
 * An {@code .index} or {@code .timeindex} file fails its sanity checks; the log rebuilds it from
 * the {@code .log} file. Immutable.
 */
public final class CorruptIndexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptIndexException(String message) {
        super(message);
    }
}
