package io.tierlog.cold;

import io.tierlog.common.typed.ValueTyper;

/**
 * The typed columns of one object: typers for values and keys (null = no such columns), and whether
 * values the typer marks rebuildable are stored once (typed only, raw bytes left out: the "one
 * copy" path). Columns (see {@code ColdLayout}): {@code value_schema_id} INT32, {@code
 * value_record} (the typer's struct), {@code value_error} STRING, {@code value_rebuilt} BOOLEAN
 * (true: {@code value} is null because it is rebuilt from {@code value_record}), and {@code
 * key_schema_id}, {@code key_record}, {@code key_error} for keys (keys are always stored raw).
 */
public record TypedColumns(ValueTyper values, ValueTyper keys, boolean oneCopy) {
    /** No typed columns: the object is written as before. */
    public static final TypedColumns NONE = new TypedColumns(null, null, false);

    public boolean any() {
        return values != null || keys != null;
    }
}
