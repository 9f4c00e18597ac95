package io.tierlog.server.group.coordinator;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    static final byte PENDING_TXN_COMMIT = 5;
    static final byte TXN_END = 6;

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
                    offsets(out, offsets);
                });
    }

    /** Offsets that {@code producerId}'s open transaction commits (TxnOffsetCommit). */
    static byte[] pending(
            String group,
            long producerId,
            short producerEpoch,
            Map<TopicPartition, OffsetStore.Committed> offsets) {
        return frame(
                out -> {
                    out.writeByte(PENDING_TXN_COMMIT);
                    string(out, group);
                    out.writeLong(producerId);
                    out.writeShort(producerEpoch);
                    offsets(out, offsets);
                });
    }

    /** The outcome of {@code producerId}'s transaction in {@code group} (its marker). */
    static byte[] txnEnd(String group, long producerId, boolean commit) {
        return frame(
                out -> {
                    out.writeByte(TXN_END);
                    string(out, group);
                    out.writeLong(producerId);
                    out.writeByte(commit ? 1 : 0);
                });
    }

    private static void offsets(
            DataOutputStream out, Map<TopicPartition, OffsetStore.Committed> offsets)
            throws IOException {
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
    }

    private static Map<TopicPartition, OffsetStore.Committed> offsets(ByteBuffer p) {
        int n = p.getInt();
        if (n < 0 || n > p.remaining()) {
            throw new IllegalArgumentException("bad offset count " + n);
        }
        Map<TopicPartition, OffsetStore.Committed> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            TopicPartition tp = new TopicPartition(string(p), p.getInt());
            long offset = p.getLong();
            int epoch = p.getInt();
            int mlen = p.getInt();
            String meta = mlen < 0 ? null : string(p, mlen);
            m.put(tp, new OffsetStore.Committed(offset, epoch, meta));
        }
        return m;
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

    /**
     * The last record of a snapshot: its number of COMMIT and PENDING_TXN_COMMIT records (before
     * transactions: of groups, one COMMIT each), so a truncated one is detected.
     */
    static byte[] end(int records) {
        return frame(
                out -> {
                    out.writeByte(END);
                    out.writeInt(records);
                });
    }

    /**
     * A whole snapshot file of {@code state}. Replaying it must give the same relative order of the
     * changes that matter (a pending offset against the committed one of its partition, and against
     * the other transactions' pending offsets of that partition), so: first one COMMIT per group of
     * the committed offsets no transaction competes with, then the others and every pending offset,
     * in their positions' order, one record per original change.
     */
    static byte[] snapshot(OffsetState state) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(SNAPSHOT_MAGIC);
        int records = 0;
        record Item(
                long position,
                String group,
                long producerId,
                TopicPartition tp,
                OffsetStore.Committed value) {}
        List<Item> ordered = new ArrayList<>();
        Map<String, Set<TopicPartition>> contested = new HashMap<>();
        for (Map.Entry<String, Map<Long, OffsetState.PendingTxn>> g : state.pending.entrySet()) {
            for (Map.Entry<Long, OffsetState.PendingTxn> t : g.getValue().entrySet()) {
                for (Map.Entry<TopicPartition, OffsetState.Positioned> e :
                        t.getValue().offsets.entrySet()) {
                    contested.computeIfAbsent(g.getKey(), k -> new HashSet<>()).add(e.getKey());
                    ordered.add(
                            new Item(
                                    e.getValue().position(),
                                    g.getKey(),
                                    t.getKey(),
                                    e.getKey(),
                                    e.getValue().value()));
                }
            }
        }
        for (Map.Entry<String, Map<TopicPartition, OffsetState.Positioned>> g :
                state.committed.entrySet()) {
            Set<TopicPartition> c = contested.getOrDefault(g.getKey(), Set.of());
            Map<TopicPartition, OffsetStore.Committed> plain = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, OffsetState.Positioned> e : g.getValue().entrySet()) {
                if (c.contains(e.getKey())) {
                    ordered.add(
                            new Item(
                                    e.getValue().position(),
                                    g.getKey(),
                                    -1,
                                    e.getKey(),
                                    e.getValue().value()));
                } else {
                    plain.put(e.getKey(), e.getValue().value());
                }
            }
            if (!plain.isEmpty()) {
                b.writeBytes(commit(g.getKey(), plain));
                records++;
            }
        }
        ordered.sort(Comparator.comparingLong(Item::position));
        for (int i = 0; i < ordered.size(); ) {
            Item first = ordered.get(i);
            Map<TopicPartition, OffsetStore.Committed> batch = new LinkedHashMap<>();
            int j = i;
            for (; j < ordered.size(); j++) {
                Item it = ordered.get(j);
                if (it.position() != first.position()
                        || it.producerId() != first.producerId()
                        || !it.group().equals(first.group())) {
                    break;
                }
                batch.put(it.tp(), it.value());
            }
            if (first.producerId() < 0) {
                b.writeBytes(commit(first.group(), batch));
            } else {
                short epoch = state.pending.get(first.group()).get(first.producerId()).epoch;
                b.writeBytes(pending(first.group(), first.producerId(), epoch, batch));
            }
            records++;
            i = j;
        }
        b.writeBytes(end(records));
        return b.toByteArray();
    }

    /**
     * Applies the records of {@code buf} (from its position) to {@code state} until its end, an
     * {@code END} record or the first damaged or torn frame, whichever comes first.
     *
     * @return the number of bytes of whole valid records applied, and whether an END record with
     *     the right group count was read
     */
    static Replayed replay(ByteBuffer buf, OffsetState state) {
        int start = buf.position();
        int records = 0;
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
                    boolean ok = payload.getInt() == records;
                    buf.position(at + FRAME_HEADER + len);
                    return new Replayed(buf.position() - start, ok);
                }
                apply(type, payload, state);
                if (type == COMMIT || type == PENDING_TXN_COMMIT) {
                    records++;
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

    private static void apply(byte type, ByteBuffer p, OffsetState state) {
        String group = string(p);
        switch (type) {
            case COMMIT -> state.commit(group, offsets(p));
            case DELETE -> {
                int n = p.getInt();
                List<TopicPartition> tps = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    tps.add(new TopicPartition(string(p), p.getInt()));
                }
                state.delete(group, tps);
            }
            case DELETE_GROUP -> state.deleteGroup(group);
            case PENDING_TXN_COMMIT -> {
                long producerId = p.getLong();
                short epoch = p.getShort();
                state.addPending(group, producerId, epoch, offsets(p));
            }
            case TXN_END -> {
                long producerId = p.getLong();
                state.endTxn(group, producerId, p.get() == 1);
            }
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
