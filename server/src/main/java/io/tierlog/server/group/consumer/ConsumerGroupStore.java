package io.tierlog.server.group.consumer;

import io.tierlog.server.meta.MetaFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable state of KIP-848 consumer groups, as Kafka keeps it in its ConsumerGroupMetadata,
 * member, target-assignment and current-assignment records: a restarted server knows each group's
 * epochs, assignor, target assignment and every member with its epochs and partitions, so members
 * carry on without a rejoin.
 *
 * <p>Format: one file per group under {@code <data.dir>/meta/consumer-groups/}, named {@code <hex
 * of the group id>.properties} (or {@code g-<sha-256>.properties} for a long id), rewritten
 * atomically ({@link MetaFiles}). Documented in docs/formats.md. A group without members has no
 * file. A file that cannot be read is moved aside to {@code <name>.corrupt-<millis>} with an ERROR:
 * that group starts without members (its members are told {@code UNKNOWN_MEMBER_ID} and rejoin).
 *
 * <p>Writes are coalesced off the caller's thread: {@link #persistLater} keeps the newest state per
 * group and asks the executor to write; a state older (by sequence number) than one written is
 * skipped; {@link #flush} writes whatever is still waiting. Thread-safe.
 */
final class ConsumerGroupStore {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupStore.class);
    private static final String SUFFIX = ".properties";

    /** One member as persisted. */
    record MemberRecord(
            String id,
            String instanceId,
            String rackId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            List<String> topicNames,
            String topicRegex,
            String serverAssignor,
            int epoch,
            int previousEpoch,
            MemberState state,
            Assignment assigned,
            Assignment pendingRevocation,
            Assignment target) {}

    /** A group as persisted; no members means "remove the file". */
    record GroupRecord(
            String groupId,
            int groupEpoch,
            int targetEpoch,
            String assignorName,
            Map<String, Integer> subscribedMetadata,
            List<MemberRecord> members) {}

    private record Pending(long seq, GroupRecord state) {}

    private final Path dir;
    private final Executor executor;
    private final Map<String, Pending> unwritten = new ConcurrentHashMap<>();
    private final Map<String, Long> written = new TreeMap<>();

    private ConsumerGroupStore(Path dir, Executor executor) {
        this.dir = dir;
        this.executor = executor;
    }

    /**
     * Opens (creating) {@code metaDir/consumer-groups}, adding every readable group to {@code
     * loaded}; {@code executor} runs the writes.
     */
    static ConsumerGroupStore open(Path metaDir, Executor executor, List<GroupRecord> loaded)
            throws IOException {
        Path dir = metaDir.resolve("consumer-groups");
        Files.createDirectories(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                try {
                    loaded.add(read(f));
                } catch (IOException | RuntimeException e) {
                    moveAside(f, e);
                }
            }
        }
        return new ConsumerGroupStore(dir, executor);
    }

    /** Moves a file that cannot be used aside, with an ERROR. */
    static void moveAside(Path f, Exception why) throws IOException {
        Path aside = f.resolveSibling(f.getFileName() + ".corrupt-" + System.currentTimeMillis());
        LOG.error(
                "Cannot read consumer group state {} ({}): moved aside to {}; that group's"
                        + " members rejoin",
                f,
                why.toString(),
                aside.getFileName());
        Files.move(f, aside, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The file of a group. */
    Path file(String groupId) {
        return dir.resolve(fileName(groupId));
    }

    static String fileName(String group) {
        String hex = HexFormat.of().formatHex(group.getBytes(StandardCharsets.UTF_8));
        if (hex.length() + SUFFIX.length() + 4 <= 255) {
            return hex + SUFFIX;
        }
        try {
            byte[] h =
                    MessageDigest.getInstance("SHA-256")
                            .digest(group.getBytes(StandardCharsets.UTF_8));
            return "g-" + HexFormat.of().formatHex(h) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    /**
     * The durable state of {@code g} (none of its members if {@code live} is false: the group was
     * deleted). Under {@code g}'s monitor.
     */
    static GroupRecord snapshot(ConsumerGroup g, boolean live) {
        List<MemberRecord> members = new ArrayList<>();
        if (live) {
            for (ConsumerGroupMember m : g.members.values()) {
                members.add(
                        new MemberRecord(
                                m.id,
                                m.instanceId,
                                m.rackId,
                                m.clientId,
                                m.clientHost,
                                m.rebalanceTimeoutMs,
                                m.topicNames,
                                m.topicRegex,
                                m.serverAssignor,
                                m.epoch,
                                m.previousEpoch,
                                m.state,
                                m.assigned,
                                m.pendingRevocation,
                                g.target.getOrDefault(m.id, Assignment.EMPTY)));
            }
        }
        return new GroupRecord(
                g.id,
                g.groupEpoch,
                g.targetEpoch,
                g.assignorName,
                Map.copyOf(g.subscribedMetadata),
                members);
    }

    /**
     * The group a record describes, its members owning their partitions (no timers yet).
     *
     * @throws IllegalStateException if two members own a partition (a damaged file)
     */
    static ConsumerGroup restore(GroupRecord r) {
        ConsumerGroup g = new ConsumerGroup(r.groupId());
        g.groupEpoch = r.groupEpoch();
        g.targetEpoch = r.targetEpoch();
        g.assignorName = r.assignorName();
        g.subscribedMetadata = new TreeMap<>(r.subscribedMetadata());
        for (MemberRecord mr : r.members()) {
            ConsumerGroupMember m = new ConsumerGroupMember(mr.id());
            m.instanceId = mr.instanceId();
            m.rackId = mr.rackId();
            m.clientId = mr.clientId();
            m.clientHost = mr.clientHost();
            m.rebalanceTimeoutMs = mr.rebalanceTimeoutMs();
            m.topicNames = mr.topicNames();
            m.topicRegex = mr.topicRegex();
            m.serverAssignor = mr.serverAssignor();
            m.epoch = mr.epoch();
            m.previousEpoch = mr.previousEpoch();
            m.state = mr.state();
            m.assigned = mr.assigned();
            m.pendingRevocation = mr.pendingRevocation();
            if (!mr.target().isEmpty()) {
                g.target.put(m.id, mr.target());
            }
            g.members.put(m.id, m);
            g.acquire(m);
        }
        return g;
    }

    /** Queues {@code s} (sequence {@code seq}, rising per group) to be written on the executor. */
    void persistLater(long seq, GroupRecord s) {
        Pending p = new Pending(seq, s);
        unwritten.merge(s.groupId(), p, (old, now) -> old.seq() > now.seq() ? old : now);
        executor.execute(this::flush);
    }

    /** Writes every state still waiting. */
    void flush() {
        for (String id : unwritten.keySet()) {
            Pending p = unwritten.get(id);
            if (p != null && unwritten.remove(id, p)) {
                try {
                    write(p);
                } catch (IOException | RuntimeException e) {
                    LOG.error(
                            "Cannot persist consumer group {}; after a restart its members"
                                    + " rejoin",
                            id,
                            e);
                }
            }
        }
    }

    private synchronized void write(Pending p) throws IOException {
        GroupRecord s = p.state();
        Long last = written.get(s.groupId());
        if (last != null && last >= p.seq()) {
            return;
        }
        written.put(s.groupId(), p.seq());
        Path file = file(s.groupId());
        if (s.members().isEmpty()) {
            if (Files.deleteIfExists(file)) {
                io.tierlog.common.AtomicFiles.fsyncDir(dir);
            }
            return;
        }
        Properties out = new Properties();
        out.setProperty("group.id", s.groupId());
        out.setProperty("group.epoch", Integer.toString(s.groupEpoch()));
        out.setProperty("target.epoch", Integer.toString(s.targetEpoch()));
        if (s.assignorName() != null) {
            out.setProperty("assignor", s.assignorName());
        }
        out.setProperty("subscribed.metadata", metadata(s.subscribedMetadata()));
        out.setProperty("members", Integer.toString(s.members().size()));
        for (int i = 0; i < s.members().size(); i++) {
            MemberRecord m = s.members().get(i);
            String k = "member." + i + ".";
            out.setProperty(k + "id", m.id());
            optional(out, k + "instance.id", m.instanceId());
            optional(out, k + "rack.id", m.rackId());
            out.setProperty(k + "client.id", m.clientId());
            out.setProperty(k + "client.host", m.clientHost());
            out.setProperty(k + "rebalance.timeout.ms", Integer.toString(m.rebalanceTimeoutMs()));
            out.setProperty(k + "topics", String.join(",", m.topicNames()));
            optional(out, k + "regex", m.topicRegex());
            optional(out, k + "server.assignor", m.serverAssignor());
            out.setProperty(k + "epoch", Integer.toString(m.epoch()));
            out.setProperty(k + "previous.epoch", Integer.toString(m.previousEpoch()));
            out.setProperty(k + "state", m.state().name());
            out.setProperty(k + "assigned", partitions(m.assigned()));
            out.setProperty(k + "pending.revocation", partitions(m.pendingRevocation()));
            out.setProperty(k + "target", partitions(m.target()));
        }
        MetaFiles.writeAtomically(file, out, "tierlog consumer group");
    }

    private static GroupRecord read(Path f) throws IOException {
        Properties p = MetaFiles.read(f);
        int n = Integer.parseInt(required(p, "members"));
        List<MemberRecord> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String k = "member." + i + ".";
            String topics = p.getProperty(k + "topics", "");
            members.add(
                    new MemberRecord(
                            required(p, k + "id"),
                            p.getProperty(k + "instance.id"),
                            p.getProperty(k + "rack.id"),
                            p.getProperty(k + "client.id", ""),
                            p.getProperty(k + "client.host", ""),
                            Integer.parseInt(required(p, k + "rebalance.timeout.ms")),
                            topics.isEmpty() ? List.of() : List.of(topics.split(",")),
                            p.getProperty(k + "regex"),
                            p.getProperty(k + "server.assignor"),
                            Integer.parseInt(required(p, k + "epoch")),
                            Integer.parseInt(required(p, k + "previous.epoch")),
                            MemberState.valueOf(required(p, k + "state")),
                            partitions(required(p, k + "assigned")),
                            partitions(required(p, k + "pending.revocation")),
                            partitions(required(p, k + "target"))));
        }
        GroupRecord s =
                new GroupRecord(
                        required(p, "group.id"),
                        Integer.parseInt(required(p, "group.epoch")),
                        Integer.parseInt(required(p, "target.epoch")),
                        p.getProperty("assignor"),
                        readMetadata(required(p, "subscribed.metadata")),
                        members);
        if (!fileName(s.groupId()).equals(f.getFileName().toString())) {
            throw new IllegalArgumentException("group.id does not match the file name");
        }
        return s;
    }

    private static void optional(Properties p, String key, String value) {
        if (value != null) {
            p.setProperty(key, value);
        }
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing key " + key);
        }
        return v;
    }

    /** {@code topic:0,1,2;other:5} (topic names have neither ':' nor ';'). */
    static String partitions(Assignment a) {
        List<String> parts = new ArrayList<>();
        a.partitions()
                .forEach(
                        (t, ps) -> {
                            List<String> ns = new ArrayList<>();
                            ps.forEach(x -> ns.add(Integer.toString(x)));
                            parts.add(t + ":" + String.join(",", ns));
                        });
        return String.join(";", parts);
    }

    static Assignment partitions(String s) {
        Map<String, TreeSet<Integer>> out = new TreeMap<>();
        if (!s.isEmpty()) {
            for (String part : s.split(";")) {
                int colon = part.lastIndexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("bad partitions " + part);
                }
                TreeSet<Integer> ps = new TreeSet<>();
                for (String x : part.substring(colon + 1).split(",")) {
                    ps.add(Integer.parseInt(x));
                }
                out.put(part.substring(0, colon), ps);
            }
        }
        return Assignment.of(out);
    }

    private static String metadata(Map<String, Integer> m) {
        List<String> parts = new ArrayList<>();
        m.forEach((t, n) -> parts.add(t + ":" + n));
        return String.join(";", parts);
    }

    private static Map<String, Integer> readMetadata(String s) {
        Map<String, Integer> out = new TreeMap<>();
        if (!s.isEmpty()) {
            for (String part : s.split(";")) {
                int colon = part.lastIndexOf(':');
                out.put(part.substring(0, colon), Integer.parseInt(part.substring(colon + 1)));
            }
        }
        return out;
    }
}
