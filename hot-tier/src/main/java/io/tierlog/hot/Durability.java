package io.tierlog.hot;

/**
 * When an append is acknowledged relative to the disk. Immutable.
 *
 * <ul>
 *   <li>{@link #PAGE_CACHE}: acknowledged once written to the page cache (Kafka's default); {@code
 *       flush.messages} / {@code flush.ms} decide when it is fsynced.
 *   <li>{@link #FSYNC}: acknowledged only after an fsync covering it; concurrent appenders share
 *       one fsync (group commit) and the high watermark never passes fsynced data.
 * </ul>
 */
public enum Durability {
    PAGE_CACHE,
    FSYNC
}
