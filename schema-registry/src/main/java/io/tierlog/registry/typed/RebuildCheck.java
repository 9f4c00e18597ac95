package io.tierlog.registry.typed;

import io.tierlog.registry.WireFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The one-copy check: rebuilds a row with exactly the code the read path uses ({@link
 * AvroRebuilder.Plan}) and compares the bytes as they are written against the original payload,
 * without building the rebuilt copy. Not thread-safe: one per typer.
 */
final class RebuildCheck {
    private final Comparing out = new Comparing();
    private BinaryEncoder encoder;

    /**
     * True when {@code row} rebuilds to exactly the bytes of {@code payload} (position to limit).
     */
    boolean rebuildsTo(AvroRebuilder.Plan plan, Object[] row, ByteBuffer payload) {
        int start = payload.position();
        if (payload.remaining() < WireFormat.HEADER_LENGTH
                || payload.get(start + WireFormat.MAGIC_OFFSET) != WireFormat.MAGIC
                || payload.getInt(start + WireFormat.SCHEMA_ID_OFFSET) != plan.schemaId()) {
            return false;
        }
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        out.reset(payload, start + WireFormat.HEADER_LENGTH);
        try {
            plan.writer().write(plan.toWriter().apply(row), encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            encoder = null; // it may hold bytes of the failed row
            return false;
        }
        return out.matchedAll();
    }

    /** An output stream that only compares what is written with the expected bytes. */
    private static final class Comparing extends OutputStream {
        private ByteBuffer expected;
        private int pos;
        private boolean mismatch;

        void reset(ByteBuffer expected, int from) {
            this.expected = expected;
            this.pos = from;
            this.mismatch = false;
        }

        boolean matchedAll() {
            return !mismatch && pos == expected.limit();
        }

        @Override
        public void write(int b) {
            if (pos >= expected.limit() || expected.get(pos) != (byte) b) {
                mismatch = true;
            }
            pos++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (mismatch || pos + len > expected.limit()) {
                mismatch = true;
                return;
            }
            if (expected.hasArray()) {
                int at = expected.arrayOffset() + pos;
                mismatch = Arrays.mismatch(b, off, off + len, expected.array(), at, at + len) >= 0;
            } else {
                for (int i = 0; i < len && !mismatch; i++) {
                    mismatch = expected.get(pos + i) != b[off + i];
                }
            }
            pos += len;
        }
    }
}
