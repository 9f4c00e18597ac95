package io.tierlog.cold;

import io.tierlog.common.typed.ValueTyper;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The typing of one object's rows as {@link ParquetLogWriter} writes them: asks the typers of
 * {@link TypedColumns} for each record's value and key, keeps a row only when it fits the struct (a
 * typer's bug must not leave a Parquet record half written), decides the one-copy path (value left
 * out, its CRC-32C kept) and counts outcomes for the footer and the offload's metrics.
 *
 * <p>Never fails for a payload: a typer that throws or returns a row that does not fit gives a
 * failed outcome with reason {@code decode}; the raw bytes are stored then, as always.
 *
 * <p>Not thread-safe: one per writer.
 */
final class TypedRows {
    private final TypedColumns typed;
    private final CRC32C crc = new CRC32C();
    private long valuesTyped;
    private long valuesRebuilt;
    private long keysTyped;
    private final Map<String, Long> valueFailures = new TreeMap<>();
    private final Map<String, Long> keyFailures = new TreeMap<>();

    TypedRows(TypedColumns typed) {
        this.typed = typed;
    }

    /** Sets the typed fields of {@code row} from its key and value (already set). */
    void type(ColdRow row) {
        row.valueRebuilt = false;
        row.valueTyped = null;
        row.keyTyped = null;
        if (typed.values() != null && row.value != null) {
            ValueTyper.Typed t = typeOne(typed.values(), row.value);
            row.valueTyped = t;
            if (t.row() != null) {
                valuesTyped++;
                if (typed.oneCopy() && t.rebuildable()) {
                    row.valueRebuilt = true;
                    crc.reset();
                    crc.update(row.value.duplicate());
                    row.valueCrc = (int) crc.getValue();
                    valuesRebuilt++;
                }
            } else {
                valueFailures.merge(t.reason(), 1L, Long::sum);
            }
        }
        if (typed.keys() != null && row.key != null) {
            ValueTyper.Typed t = typeOne(typed.keys(), row.key);
            row.keyTyped = t;
            if (t.row() != null) {
                keysTyped++;
            } else {
                keyFailures.merge(t.reason(), 1L, Long::sum);
            }
        }
    }

    private static ValueTyper.Typed typeOne(ValueTyper typer, ByteBuffer payload) {
        ValueTyper.Typed t;
        try {
            t = typer.type(payload.duplicate());
        } catch (RuntimeException e) {
            return ValueTyper.Typed.failed(-1, "decode", "typer failed: " + e);
        }
        if (t == null) {
            return ValueTyper.Typed.failed(-1, "decode", "typer returned nothing");
        }
        if (t.row() == null) {
            String reason = t.reason() == null ? "decode" : t.reason();
            String error = t.error() == null ? reason : t.error();
            return new ValueTyper.Typed(t.schemaId(), null, error, reason, false);
        }
        String misfit = TypedParquet.misfit(typer.struct(), t.row());
        if (misfit != null) {
            return ValueTyper.Typed.failed(
                    t.schemaId(), "decode", "typed row does not fit the struct: " + misfit);
        }
        return t;
    }

    /** Adds the {@code tierlog.typed.*} counts to the footer metadata. */
    void putMetadata(Map<String, String> meta) {
        if (typed.values() != null) {
            meta.put(ColdLayout.META_TYPED_VALUE_ROWS, Long.toString(valuesTyped));
            meta.put(ColdLayout.META_TYPED_VALUE_FAILED, Long.toString(sum(valueFailures)));
            meta.put(ColdLayout.META_TYPED_VALUE_REBUILT, Long.toString(valuesRebuilt));
        }
        if (typed.keys() != null) {
            meta.put(ColdLayout.META_TYPED_KEY_ROWS, Long.toString(keysTyped));
            meta.put(ColdLayout.META_TYPED_KEY_FAILED, Long.toString(sum(keyFailures)));
        }
    }

    TypedCounts counts() {
        return new TypedCounts(valuesTyped, valuesRebuilt, keysTyped, valueFailures, keyFailures);
    }

    private static long sum(Map<String, Long> m) {
        long s = 0;
        for (long v : m.values()) {
            s += v;
        }
        return s;
    }
}
