package io.tierlog.server.txn.coordinator;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.kafka.common.TopicPartition;

/**
 * The binary records of the transaction state journal and snapshots (docs/formats.md, "Transaction
 * state"). Every record is a frame {@code int32 length, int32 CRC-32C of the payload, payload},
 * big-endian; the payload starts with a type byte:
 *
 * <ul>
 *   <li>{@link #HEADER} (snapshots only, first): {@code int32 coordinatorEpoch}
 *   <li>{@link #STATE}: {@code string txnId, int64 producerId, int64 prevProducerId, int64
 *       nextProducerId, int16 producerEpoch, int16 lastProducerEpoch, int32 timeoutMs, int8 state
 *       id, int16 clientTransactionVersion, int64 startMs, int64 lastUpdateMs, int32 n x (string
 *       topic, int32 m x int32 partition), int32 k x string groupId}
 *   <li>{@link #TOMBSTONE}: {@code string txnId} (the id expired)
 *   <li>{@link #END} (snapshots only, last): empty
 * </ul>
 *
 * Strings are {@code int16 length, UTF-8 bytes}. Stateless and thread-safe.
 */
final class TxnRecords {
    static final byte HEADER = 0;
    static final byte STATE = 1;
    static final byte TOMBSTONE = 2;
    static final byte END = 3;

    /** First bytes of a journal file. */
    static final byte[] JOURNAL_MAGIC = "TLTXNJ01".getBytes(StandardCharsets.US_ASCII);

    /** First bytes of a snapshot file. */
    static final byte[] SNAPSHOT_MAGIC = "TLTXNS01".getBytes(StandardCharsets.US_ASCII);

    static final int FRAME_HEADER = 8;

    /** Larger frames are taken for damage. */
    static final int MAX_PAYLOAD = 1 << 26;

    private TxnRecords() {}

    /** What a journal or snapshot replays to. */
    static final class Replay {
        /** Latest record per transactional id (tombstoned ids removed). */
        final Map<String, TxnTransit> states = new TreeMap<>();

        int coordinatorEpoch = -1;
        boolean ended;

        /** Bytes of whole, valid frames from the start of the replayed buffer. */
        int validBytes;
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    static byte[] header(int coordinatorEpoch) {
        return frame(
                out -> {
                    out.writeByte(HEADER);
                    out.writeInt(coordinatorEpoch);
                });
    }

    static byte[] state(TxnTransit t) {
        return frame(
                out -> {
                    out.writeByte(STATE);
                    string(out, t.transactionalId());
                    out.writeLong(t.producerId());
                    out.writeLong(t.prevProducerId());
                    out.writeLong(t.nextProducerId());
                    out.writeShort(t.producerEpoch());
                    out.writeShort(t.lastProducerEpoch());
                    out.writeInt(t.timeoutMs());
                    out.writeByte(t.state().id());
                    out.writeShort(t.clientTv());
                    out.writeLong(t.startMs());
                    out.writeLong(t.lastUpdateMs());
                    Map<String, Set<Integer>> byTopic = new TreeMap<>();
                    for (TopicPartition tp : t.partitions()) {
                        byTopic.computeIfAbsent(tp.topic(), k -> new java.util.TreeSet<>())
                                .add(tp.partition());
                    }
                    out.writeInt(byTopic.size());
                    for (Map.Entry<String, Set<Integer>> e : byTopic.entrySet()) {
                        string(out, e.getKey());
                        out.writeInt(e.getValue().size());
                        for (int p : e.getValue()) {
                            out.writeInt(p);
                        }
                    }
                    out.writeInt(t.groups().size());
                    for (String g : t.groups()) {
                        string(out, g);
                    }
                });
    }

    static byte[] tombstone(String txnId) {
        return frame(
                out -> {
                    out.writeByte(TOMBSTONE);
                    string(out, txnId);
                });
    }

    static byte[] end() {
        return frame(out -> out.writeByte(END));
    }

    /** A snapshot file: magic, header, every state, end. */
    static byte[] snapshot(int coordinatorEpoch, Collection<TxnTransit> states) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(SNAPSHOT_MAGIC);
        b.writeBytes(header(coordinatorEpoch));
        for (TxnTransit t : states) {
            b.writeBytes(state(t));
        }
        b.writeBytes(end());
        return b.toByteArray();
    }

    private static byte[] frame(Body body) {
        try {
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(payload);
            body.write(out);
            out.flush();
            byte[] p = payload.toByteArray();
            CRC32C crc = new CRC32C();
            crc.update(p);
            ByteBuffer f = ByteBuffer.allocate(FRAME_HEADER + p.length);
            f.putInt(p.length).putInt((int) crc.getValue()).put(p);
            return f.array();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string of " + b.length + " bytes is too long");
        }
        out.writeShort(b.length);
        out.write(b);
    }

    private static String string(ByteBuffer b) {
        int n = b.getShort();
        if (n < 0) {
            throw new IllegalArgumentException("negative string length");
        }
        byte[] s = new byte[n];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /**
     * Replays the frames of {@code buf} from its position into {@code into}; stops at the end of
     * the buffer, after an END frame, or at the first torn or damaged frame (length beyond the
     * buffer, bad CRC, unparseable payload): {@code validBytes} says how far it got.
     */
    static void replay(ByteBuffer buf, Replay into) {
        int start = buf.position();
        while (buf.remaining() >= FRAME_HEADER && !into.ended) {
            int at = buf.position();
            int len = buf.getInt(at);
            int crc = buf.getInt(at + 4);
            if (len < 1 || len > MAX_PAYLOAD || len > buf.remaining() - FRAME_HEADER) {
                break;
            }
            ByteBuffer payload = buf.slice(at + FRAME_HEADER, len);
            CRC32C c = new CRC32C();
            c.update(payload.duplicate());
            if ((int) c.getValue() != crc) {
                break;
            }
            try {
                apply(payload, into);
            } catch (BufferUnderflowException | IllegalArgumentException e) {
                break;
            }
            buf.position(at + FRAME_HEADER + len);
            into.validBytes = buf.position() - start;
        }
    }

    private static void apply(ByteBuffer p, Replay into) {
        byte type = p.get();
        switch (type) {
            case HEADER -> into.coordinatorEpoch = p.getInt();
            case STATE -> {
                String id = string(p);
                long pid = p.getLong();
                long prev = p.getLong();
                long next = p.getLong();
                short epoch = p.getShort();
                short last = p.getShort();
                int timeout = p.getInt();
                TransactionState state = TransactionState.fromId(p.get());
                short tv = p.getShort();
                long startMs = p.getLong();
                long updateMs = p.getLong();
                Set<TopicPartition> parts = new LinkedHashSet<>();
                int topics = count(p);
                for (int i = 0; i < topics; i++) {
                    String topic = string(p);
                    int n = count(p);
                    for (int j = 0; j < n; j++) {
                        parts.add(new TopicPartition(topic, p.getInt()));
                    }
                }
                Set<String> groups = new LinkedHashSet<>();
                int k = count(p);
                for (int i = 0; i < k; i++) {
                    groups.add(string(p));
                }
                if (p.hasRemaining()) {
                    throw new IllegalArgumentException("trailing bytes in a state record");
                }
                into.states.put(
                        id,
                        new TxnTransit(
                                id, pid, prev, next, epoch, last, timeout, state, parts, groups,
                                startMs, updateMs, tv));
            }
            case TOMBSTONE -> into.states.remove(string(p));
            case END -> into.ended = true;
            default -> throw new IllegalArgumentException("unknown record type " + type);
        }
    }

    private static int count(ByteBuffer p) {
        int n = p.getInt();
        if (n < 0 || n > p.remaining()) {
            throw new IllegalArgumentException("bad count " + n);
        }
        return n;
    }
}
