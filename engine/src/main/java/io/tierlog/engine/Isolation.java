package io.tierlog.engine;

/** A fetch's isolation level, as Kafka's {@code isolation_level} (0, 1). */
public enum Isolation {
    /** Every record up to the high watermark, aborted and open transactions included. */
    READ_UNCOMMITTED,
    /** Records below the last stable offset, with the aborted transactions of the range. */
    READ_COMMITTED
}
