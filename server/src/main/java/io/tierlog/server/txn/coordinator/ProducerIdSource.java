package io.tierlog.server.txn.coordinator;

import java.io.IOException;

/**
 * Where the transaction coordinator takes new producer ids from: the server's crash-safe allocator
 * ({@code io.tierlog.server.meta.ProducerIdManager::nextProducerId}), so that transactional and
 * idempotent producers never share an id. Implementations must be thread-safe; a call may block on
 * disk (the coordinator calls it on its I/O executor only).
 */
@FunctionalInterface
public interface ProducerIdSource {
    /** A producer id never handed out before, by this or any earlier run. */
    long nextProducerId() throws IOException;
}
