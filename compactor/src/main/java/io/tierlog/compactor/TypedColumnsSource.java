package io.tierlog.compactor;

import io.tierlog.cold.TypedColumns;
import io.tierlog.common.typed.ValueRebuilder;

/**
 * Where the compactor gets the typed columns of each object it writes (offload and cold
 * compaction), and the rebuilder of values stored once that cold compaction needs to read objects
 * back. {@link RegistryTypedColumns} is the one over the schema registry; {@link #NONE} writes
 * objects without typed columns. Implementations are thread-safe (offload threads ask in parallel)
 * and never throw: a source that cannot say gives {@link TypedColumns#NONE}.
 */
public interface TypedColumnsSource {
    /** No typed columns; values stored once cannot be read back. */
    TypedColumnsSource NONE =
            new TypedColumnsSource() {
                @Override
                public TypedColumns forObject(String topic) {
                    return TypedColumns.NONE;
                }

                @Override
                public ValueRebuilder rebuilder() {
                    return null;
                }
            };

    /** The typed columns of the next object of {@code topic}: asked once per object. */
    TypedColumns forObject(String topic);

    /** Rebuilds values stored once (null: none can be). */
    ValueRebuilder rebuilder();
}
