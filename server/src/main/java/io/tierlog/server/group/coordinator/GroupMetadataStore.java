package io.tierlog.server.group.coordinator;

import io.tierlog.server.meta.MetaFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership of classic groups as of their last stable generation, persisted so that a
 * restarted server knows its groups' members as Kafka does from its {@code GroupMetadataValue}
 * records: members keep heartbeating with their ids and generation without a rebalance, and a
 * static member that rejoins after the restart keeps its assignment.
 *
 * <p>Format: one file per group under {@code <data.dir>/meta/group-members/}, named as {@link
 * OffsetStore#fileName} names it, rewritten atomically ({@link MetaFiles}: temp file, fsync,
 * rename, directory fsync). Keys: {@code group.id}, {@code generation}, {@code protocol.type},
 * {@code protocol.name}, {@code leader}, {@code members} (the count), and per member {@code i} (0
 * .. count-1) {@code member.<i>.id}, {@code .instance.id} (absent for a dynamic member), {@code
 * .client.id}, {@code .client.host}, {@code .session.timeout.ms}, {@code .rebalance.timeout.ms},
 * {@code .metadata} (the chosen protocol's metadata, base64) and {@code .assignment} (base64). As
 * in Kafka only the chosen protocol's metadata is kept. A group that became Empty has no file. A
 * file that cannot be read at startup is moved aside to {@code <name>.corrupt-<millis>} with an
 * ERROR: that group starts empty (its members rejoin), its committed offsets are kept elsewhere.
 *
 * <p>Thread-safe: writes of one group are serialised and a snapshot older than the last one written
 * (by its sequence number) is skipped, so writes may run on any thread in any order.
 */
final class GroupMetadataStore {
    private static final Logger LOG = LoggerFactory.getLogger(GroupMetadataStore.class);
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    /** One member as persisted. */
    record MemberSnapshot(
            String id,
            String instanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            byte[] metadata,
            byte[] assignment) {}

    /** A group as persisted; {@code members} empty means "delete the file". */
    record Snapshot(
            String groupId,
            long seq,
            int generation,
            String protocolType,
            String protocolName,
            String leader,
            List<MemberSnapshot> members) {}

    private final Path dir;
    private final Map<String, Long> written = new HashMap<>();

    private GroupMetadataStore(Path dir) {
        this.dir = dir;
    }

    /** Opens (creating) the directory and reads every group's snapshot. */
    static GroupMetadataStore open(Path metaDir, List<Snapshot> loaded) throws IOException {
        Path dir = metaDir.resolve("group-members");
        Files.createDirectories(dir);
        GroupMetadataStore s = new GroupMetadataStore(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.properties")) {
            for (Path f : files) {
                try {
                    loaded.add(read(f));
                } catch (IOException | RuntimeException e) {
                    Path aside =
                            f.resolveSibling(
                                    f.getFileName() + ".corrupt-" + System.currentTimeMillis());
                    LOG.error(
                            "Cannot read group membership {} ({}): moved aside to {}; that"
                                    + " group's members rejoin as new members",
                            f,
                            e.toString(),
                            aside.getFileName());
                    Files.move(f, aside, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        }
        return s;
    }

    private static Snapshot read(Path f) throws IOException {
        Properties p = MetaFiles.read(f);
        int n = Integer.parseInt(p.getProperty("members"));
        List<MemberSnapshot> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String k = "member." + i + ".";
            members.add(
                    new MemberSnapshot(
                            required(p, k + "id"),
                            p.getProperty(k + "instance.id"),
                            p.getProperty(k + "client.id", ""),
                            p.getProperty(k + "client.host", ""),
                            Integer.parseInt(required(p, k + "session.timeout.ms")),
                            Integer.parseInt(required(p, k + "rebalance.timeout.ms")),
                            B64D.decode(p.getProperty(k + "metadata", "")),
                            B64D.decode(p.getProperty(k + "assignment", ""))));
        }
        return new Snapshot(
                required(p, "group.id"),
                0,
                Integer.parseInt(required(p, "generation")),
                required(p, "protocol.type"),
                required(p, "protocol.name"),
                p.getProperty("leader"),
                members);
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing key " + key);
        }
        return v;
    }

    /** Writes (or, for a snapshot without members, removes) the group's file unless outdated. */
    void write(Snapshot s) throws IOException {
        synchronized (this) {
            Long last = written.get(s.groupId());
            if (last != null && last >= s.seq()) {
                return;
            }
            written.put(s.groupId(), s.seq());
            Path file = dir.resolve(OffsetStore.fileName(s.groupId()));
            if (s.members().isEmpty()) {
                if (Files.deleteIfExists(file)) {
                    io.tierlog.common.AtomicFiles.fsyncDir(dir);
                }
                return;
            }
            Properties p = new Properties();
            p.setProperty("group.id", s.groupId());
            p.setProperty("generation", Integer.toString(s.generation()));
            p.setProperty("protocol.type", s.protocolType());
            p.setProperty("protocol.name", s.protocolName());
            if (s.leader() != null) {
                p.setProperty("leader", s.leader());
            }
            p.setProperty("members", Integer.toString(s.members().size()));
            for (int i = 0; i < s.members().size(); i++) {
                MemberSnapshot m = s.members().get(i);
                String k = "member." + i + ".";
                p.setProperty(k + "id", m.id());
                if (m.instanceId() != null) {
                    p.setProperty(k + "instance.id", m.instanceId());
                }
                p.setProperty(k + "client.id", m.clientId());
                p.setProperty(k + "client.host", m.clientHost());
                p.setProperty(k + "session.timeout.ms", Integer.toString(m.sessionTimeoutMs()));
                p.setProperty(k + "rebalance.timeout.ms", Integer.toString(m.rebalanceTimeoutMs()));
                p.setProperty(k + "metadata", B64.encodeToString(m.metadata()));
                p.setProperty(k + "assignment", B64.encodeToString(m.assignment()));
            }
            MetaFiles.writeAtomically(file, p, "tierlog group membership");
        }
    }
}
