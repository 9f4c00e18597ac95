package io.tierlog.itests.hot;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 over the content of a run of v2 record batches that the log does not rewrite on a
 * CreateTime append: for each batch the bytes from {@code attributes} (offset 21) to its end, i.e.
 * everything the batch CRC covers. Base offset, length, partition leader epoch, magic and CRC are
 * left out (the first three are assigned or checked by the log, the CRC follows from the rest).
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class BatchDigest {
    private static final int LENGTH_OFFSET = 8;
    private static final int LOG_OVERHEAD = 12;
    private static final int ATTRIBUTES_OFFSET = 21;

    private BatchDigest() {}

    /** Digest of all whole batches from {@code buf}'s position to its limit. */
    static String of(ByteBuffer buf) {
        return of(List.of(buf));
    }

    /** Digest of the batches in all buffers, in order (a run may span two segments). */
    static String of(List<ByteBuffer> buffers) {
        MessageDigest sha = sha256();
        for (ByteBuffer buf : buffers) {
            update(sha, buf);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void update(MessageDigest sha, ByteBuffer buf) {
        int p = buf.position();
        while (p + LOG_OVERHEAD <= buf.limit()) {
            int size = LOG_OVERHEAD + buf.getInt(p + LENGTH_OFFSET);
            ByteBuffer content = buf.duplicate();
            content.limit(p + size).position(p + ATTRIBUTES_OFFSET);
            sha.update(content);
            p += size;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
