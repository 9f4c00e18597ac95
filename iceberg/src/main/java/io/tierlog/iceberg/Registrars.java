package io.tierlog.iceberg;

import java.util.UUID;

/** What a {@link TopicRegistrar} round runs on; implemented by the registrar. */
interface Registrars {
    TableSetup setup();

    /** The Iceberg catalog, opened on first use. @throws TableException if it cannot be reached */
    TableCatalog catalog();

    ObjectStoreFileIO io();

    /** tierlog's catalog id: every snapshot's {@code tierlog.writer}. */
    UUID catalogId();

    /** The table location of {@code topic}. */
    String location(String topic);

    CommitHooks hooks();

    /** At most this many files added per commit (a backfill commits in batches). */
    int batchLimit();

    void notifyRegistered(String topic, int partition, long nextOffset, long atMs);
}
