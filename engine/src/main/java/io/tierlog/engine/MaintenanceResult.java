package io.tierlog.engine;

import io.tierlog.compactor.PassResult;
import java.util.Optional;

/**
 * What one {@link TieredLog#maintain()} did. Immutable, so thread-safe.
 *
 * @param offload the offload pass, if offload is enabled
 * @param coldObjectsDeleted cold objects removed by total retention
 */
public record MaintenanceResult(Optional<PassResult> offload, int coldObjectsDeleted) {}
