package io.tierlog.server.group.coordinator;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;
import org.apache.kafka.common.TopicPartition;

/**
 * The binary records of the offset journal and snapshots (docs/formats.md, "Group offsets"): each
 * framed as {@code int32 length, int32 CRC-32C of the payload, payload}, big-endian; the payload
 * starts with a type byte. Stateless and thread-safe.
 */
final class OffsetRecords {
    static final byte COMMIT = 1;
    static final byte DELETE = 2;
    static final byte DELETE_GROUP = 3;
    static final byte END = 4;

    /** First bytes of a journal file. */
    static final byte[] JOURNAL_MAGIC = "TLOFFJ01".getBytes(StandardCharsets.US_ASCII);

    /** First bytes of a snapshot file. */
    static final byte[] SNAPSHOT_MAGIC = "TLOFFS01".getBytes(StandardCharsets.US_ASCII);

    static final int FRAME_HEADER = 8;

    /** Larger frames are taken for damage (a commit of 16 MiB is far beyond any request limit). */
    static final int MAX_PAYLOAD = 1 << 28;

    private OffsetRecords() {}

    static byte[] commit(String group, Map<TopicPartition, OffsetStore.Committed> offsets) {
        return frame(
                out -> {
                    out.writeByte(COMMIT);
                    string(out, group);
                    out.writeInt(offsets.size());
                    for (Map.Entry<TopicPartition, OffsetStore.Committed> e : offsets.entrySet()) {
                        string(out, e.getKey().topic());
                        out.writeInt(e.getKey().partition());
                        out.writeLong(e.getValue().offset());
                        out.writeInt(e.getValue().leaderEpoch());
                        String m = e.getValue().metadata();
                        if (m == null) {
                            out.writeInt(-1);
                        } else {
                            string(out, m);
                        }
                    }
                });
    }

    static byte[] delete(String group, Collection<TopicPartition> partitions) {
        return frame(
                out -> {
                    out.writeByte(DELETE);
                    string(out, group);
                    out.writeInt(partitions.size());
                    for (TopicPartition tp : partitions) {
                        string(out, tp.topic());
                        out.writeInt(tp.partition());
                    }
                });
    }

    static byte[] deleteGroup(String group) {
        return frame(
                out -> {
                    out.writeByte(DELETE_GROUP);
                    string(out, group);
                });
    }

    /** The last record of a snapshot: its number of groups, so a truncated one is detected. */
    static byte[] end(int groups) {
        return frame(
                out -> {
                    out.writeByte(END);
                    out.writeInt(groups);
                });
    }

    /** A whole snapshot file of {@code state}. */
    static byte[] snapshot(Map<String, Map<TopicPartition, OffsetStore.Committed>> state) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(SNAPSHOT_MAGIC);
        for (Map.Entry<String, Map<TopicPartition, OffsetStore.Committed>> g : state.entrySet()) {
            b.writeBytes(commit(g.getKey(), g.getValue()));
        }
        b.writeBytes(end(state.size()));
        return b.toByteArray();
    }

    /**
     * Applies the records of {@code buf} (from its position) to {@code state} until its end, an
     * {@code END} record or the first damaged or torn frame, whichever comes first.
     *
     * @return the number of bytes of whole valid records applied, and whether an END record with
     *     the right group count was read
     */
    static Replayed replay(
            ByteBuffer buf, Map<String, Map<TopicPartition, OffsetStore.Committed>> state) {
        int start = buf.position();
        int groupsCommitted = 0;
        while (buf.remaining() >= FRAME_HEADER) {
            int at = buf.position();
            int len = buf.getInt();
            int crc = buf.getInt();
            if (len < 1 || len > MAX_PAYLOAD || len > buf.remaining()) {
                buf.position(at);
                break;
            }
            ByteBuffer payload = buf.slice(buf.position(), len);
            CRC32C c = new CRC32C();
            c.update(payload.duplicate());
            if ((int) c.getValue() != crc) {
                buf.position(at);
                break;
            }
            try {
                byte type = payload.get();
                if (type == END) {
                    boolean ok = payload.getInt() == groupsCommitted;
                    buf.position(at + FRAME_HEADER + len);
                    return new Replayed(buf.position() - start, ok);
                }
                apply(type, payload, state);
                if (type == COMMIT) {
                    groupsCommitted++;
                }
            } catch (BufferUnderflowException | IllegalArgumentException e) {
                // a frame with a valid CRC but a payload we cannot parse: damaged all the same
                buf.position(at);
                break;
            }
            buf.position(at + FRAME_HEADER + len);
        }
        return new Replayed(buf.position() - start, false);
    }

    /** Bytes of whole records applied; whether a snapshot's END record closed them. */
    record Replayed(int bytes, boolean ended) {}

    private static void apply(
            byte type,
            ByteBuffer p,
            Map<String, Map<TopicPartition, OffsetStore.Committed>> state) {
        String group = string(p);
        switch (type) {
            case COMMIT -> {
                int n = p.getInt();
                Map<TopicPartition, OffsetStore.Committed> m =
                        state.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
                for (int i = 0; i < n; i++) {
                    TopicPartition tp = new TopicPartition(string(p), p.getInt());
                    long offset = p.getLong();
                    int epoch = p.getInt();
                    int mlen = p.getInt();
                    String meta = mlen < 0 ? null : string(p, mlen);
                    m.put(tp, new OffsetStore.Committed(offset, epoch, meta));
                }
            }
            case DELETE -> {
                int n = p.getInt();
                Map<TopicPartition, OffsetStore.Committed> m = state.get(group);
                for (int i = 0; i < n; i++) {
                    TopicPartition tp = new TopicPartition(string(p), p.getInt());
                    if (m != null) {
                        m.remove(tp);
                    }
                }
                if (m != null && m.isEmpty()) {
                    state.remove(group);
                }
            }
            case DELETE_GROUP -> state.remove(group);
            default -> throw new IllegalArgumentException("unknown record type " + type);
        }
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] frame(Body body) {
        ByteArrayOutputStream payload = new ByteArrayOutputStream(64);
        try {
            body.write(new DataOutputStream(payload));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        byte[] p = payload.toByteArray();
        CRC32C c = new CRC32C();
        c.update(p);
        ByteBuffer f = ByteBuffer.allocate(FRAME_HEADER + p.length);
        f.putInt(p.length).putInt((int) c.getValue()).put(p);
        return f.array();
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String string(ByteBuffer p) {
        return string(p, p.getInt());
    }

    private static String string(ByteBuffer p, int len) {
        if (len < 0 || len > p.remaining()) {
            throw new IllegalArgumentException("bad string length " + len);
        }
        byte[] b = new byte[len];
        p.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
