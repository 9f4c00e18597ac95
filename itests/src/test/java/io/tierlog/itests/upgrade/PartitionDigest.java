package io.tierlog.itests.upgrade;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What a partition's records are, in a form that survives a restart on other code: count, first and
 * last offset, and a SHA-256 over every record in offset order.
 *
 * <p>Encoding fed to the digest, per record: int64 offset, int64 timestamp, int8 timestamp type id,
 * key and value each as int32 length (-1 for null) then the bytes, int32 header count, then per
 * header its UTF-8 key (int32 length + bytes) and value (int32 length or -1, bytes). Everything a
 * consumer sees of a record goes in, so two equal digests mean the same records at the same
 * offsets. Not thread-safe.
 */
final class PartitionDigest {
    private final MessageDigest sha;
    private long count;
    private long first = -1;
    private long last = -1;

    PartitionDigest() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Adds the next record; offsets must increase. */
    void add(ConsumerRecord<byte[], byte[]> r) {
        if (r.offset() <= last) {
            throw new IllegalStateException(
                    "offset "
                            + r.offset()
                            + " after "
                            + last
                            + " in "
                            + r.topic()
                            + "-"
                            + r.partition());
        }
        ByteBuffer fixed = ByteBuffer.allocate(17);
        fixed.putLong(r.offset()).putLong(r.timestamp()).put((byte) r.timestampType().id);
        sha.update(fixed.array());
        bytes(r.key());
        bytes(r.value());
        Header[] headers = r.headers().toArray();
        sha.update(ByteBuffer.allocate(4).putInt(headers.length).array());
        for (Header h : headers) {
            bytes(h.key().getBytes(StandardCharsets.UTF_8));
            bytes(h.value());
        }
        if (first < 0) {
            first = r.offset();
        }
        last = r.offset();
        count++;
    }

    private void bytes(byte[] b) {
        sha.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
        if (b != null) {
            sha.update(b);
        }
    }

    long count() {
        return count;
    }

    /** Offset of the first record added, -1 if none. */
    long first() {
        return first;
    }

    /** Offset of the last record added, -1 if none. */
    long last() {
        return last;
    }

    /** Hex SHA-256 of everything added; ends this digest. */
    String finish() {
        return HexFormat.of().formatHex(sha.digest());
    }
}
