package io.tierlog.engine;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidList;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigDef.Validator;

/**
 * Every topic config Apache Kafka 4.4 knows ({@code LogConfig}), with Kafka's type, default,
 * validation and broker-level synonyms ({@code ServerTopicConfigSynonyms}), and whether it acts on
 * a single tierlog node or is only accepted. The one place the names live: other modules use the
 * key constants below.
 *
 * <p>Numbers are Kafka 4.4's own (read from its {@code LogConfig.configDef()}): {@code
 * segment.bytes} at least 1 MiB (Kafka's tests use the internal {@code internal.segment.bytes}
 * instead, as tierlog's may), {@code segment.index.bytes} at least 4, {@code
 * min.cleanable.dirty.ratio} in [0, 1], {@code local.retention.*} at least -2 (-2: take {@code
 * retention.*}), and so on.
 *
 * <p>Immutable; thread-safe.
 */
public final class KafkaTopicConfigs {
    private KafkaTopicConfigs() {}

    /** What a config does on a single tierlog node. */
    public enum Effect {
        /** Takes effect (or will, with the append-path work, for the ones marked so in docs). */
        ACTS,
        /** Validated, stored and described, with no effect on a single node. */
        INERT
    }

    /**
     * One Kafka topic config: its name, Kafka's type ({@code INT}, {@code LONG}, {@code LIST},
     * ...), Kafka's default as text, Kafka's broker-level names for its default in precedence order
     * (the first is the one a dynamic broker config sets), and what it does on a single node.
     * Immutable.
     */
    public static final class Def {
        private final String name;
        private final Type type;
        private final String kafkaDefault;
        private final Validator validator;
        private final List<String> brokerSynonyms;
        private final Effect effect;
        private final String doc;

        private Def(
                String name,
                Type type,
                String kafkaDefault,
                Validator validator,
                List<String> brokerSynonyms,
                Effect effect,
                String doc) {
            this.name = name;
            this.type = type;
            this.kafkaDefault = kafkaDefault;
            this.validator = validator;
            this.brokerSynonyms = brokerSynonyms;
            this.effect = effect;
            this.doc = doc;
        }

        public String name() {
            return name;
        }

        /** Kafka's type name, as DescribeConfigs reports it. */
        public String type() {
            return type.name();
        }

        /** Whether the value is a comma-separated list (APPEND and SUBTRACT apply). */
        public boolean isList() {
            return type == Type.LIST;
        }

        public String kafkaDefault() {
            return kafkaDefault;
        }

        public List<String> brokerSynonyms() {
            return brokerSynonyms;
        }

        public Effect effect() {
            return effect;
        }

        public String doc() {
            return doc;
        }

        /**
         * Parses and validates {@code value} as Kafka does.
         *
         * @throws org.apache.kafka.common.config.ConfigException Kafka's message ("Invalid value
         *     ... for configuration ...")
         */
        public Object parse(String value) {
            return parseAs(name, value);
        }

        /** {@link #parse} under another name (the broker synonym being set). */
        public Object parseAs(String key, String value) {
            Object v = ConfigDef.parseType(key, value, type);
            if (validator != null) {
                validator.ensureValid(key, v);
            }
            return v;
        }

        /** The broker key a dynamic broker config of this topic config sets, if Kafka has one. */
        public Optional<String> brokerKey() {
            return brokerSynonyms.isEmpty() ? Optional.empty() : Optional.of(brokerSynonyms.get(0));
        }
    }

    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String INTERNAL_SEGMENT_BYTES = "internal.segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_JITTER_MS = "segment.jitter.ms";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MAX_DECOMPRESSED_MESSAGE_BYTES = "max.decompressed.message.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";
    public static final String PREALLOCATE = "preallocate";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    public static final String LEADER_REPLICATION_THROTTLED_REPLICAS =
            "leader.replication.throttled.replicas";
    public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS =
            "follower.replication.throttled.replicas";
    public static final String REMOTE_STORAGE_ENABLE = "remote.storage.enable";
    public static final String LOCAL_RETENTION_MS = "local.retention.ms";
    public static final String LOCAL_RETENTION_BYTES = "local.retention.bytes";
    public static final String REMOTE_LOG_COPY_DISABLE = "remote.log.copy.disable";
    public static final String REMOTE_COPY_LAG_MS = "remote.copy.lag.ms";
    public static final String REMOTE_COPY_LAG_BYTES = "remote.copy.lag.bytes";
    public static final String REMOTE_LOG_DELETE_ON_DISABLE = "remote.log.delete.on.disable";
    public static final String ERRORS_DEADLETTERQUEUE_GROUP_ENABLE =
            "errors.deadletterqueue.group.enable";

    /** The topic key tierlog used for {@link #MAX_MESSAGE_BYTES} before it took Kafka's name. */
    public static final String LEGACY_MESSAGE_MAX_BYTES = "message.max.bytes";

    /** {@code cleanup.policy} values. */
    public static final String CLEANUP_DELETE = "delete";

    public static final String CLEANUP_COMPACT = "compact";

    private static final Map<String, Def> DEFS = build();

    private static Map<String, Def> build() {
        Map<String, Def> m = new LinkedHashMap<>();
        Effect a = Effect.ACTS;
        Effect i = Effect.INERT;
        long max = Long.MAX_VALUE;
        def(
                m,
                SEGMENT_BYTES,
                Type.INT,
                "1073741824",
                Range.atLeast(1024 * 1024),
                a,
                "Roll a new segment at this size.",
                "log.segment.bytes");
        def(
                m,
                SEGMENT_MS,
                Type.LONG,
                "604800000",
                Range.atLeast(1),
                a,
                "Roll a non-empty segment this long after its first batch.",
                "log.roll.ms",
                "log.roll.hours");
        def(
                m,
                SEGMENT_JITTER_MS,
                Type.LONG,
                "0",
                Range.atLeast(0),
                a,
                "Random jitter subtracted from segment.ms.",
                "log.roll.jitter.ms",
                "log.roll.jitter.hours");
        def(
                m,
                SEGMENT_INDEX_BYTES,
                Type.INT,
                "10485760",
                Range.atLeast(4),
                a,
                "Size of each segment's offset and time index.",
                "log.index.size.max.bytes");
        def(
                m,
                FLUSH_MESSAGES,
                Type.LONG,
                Long.toString(max),
                Range.atLeast(1),
                a,
                "Fsync after this many records.",
                "log.flush.interval.messages");
        def(
                m,
                FLUSH_MS,
                Type.LONG,
                Long.toString(max),
                Range.atLeast(0),
                a,
                "Fsync data older than this.",
                "log.flush.interval.ms",
                "log.flush.scheduler.interval.ms");
        def(
                m,
                RETENTION_BYTES,
                Type.LONG,
                "-1",
                null,
                a,
                "Delete the oldest data while a partition (both tiers) is larger (-1: unlimited).",
                "log.retention.bytes");
        def(
                m,
                RETENTION_MS,
                Type.LONG,
                "604800000",
                Range.atLeast(-1),
                a,
                "Delete data older than this, in both tiers (-1: unlimited).",
                "log.retention.ms",
                "log.retention.minutes",
                "log.retention.hours");
        def(
                m,
                MAX_MESSAGE_BYTES,
                Type.INT,
                "1048588",
                Range.atLeast(0),
                a,
                "Largest record batch accepted.",
                "message.max.bytes");
        def(
                m,
                MAX_DECOMPRESSED_MESSAGE_BYTES,
                Type.INT,
                "2147483639",
                Range.between(1, 2147483639),
                i,
                "Largest decompressed batch (accepted; not enforced).",
                "max.decompressed.message.bytes");
        def(
                m,
                INDEX_INTERVAL_BYTES,
                Type.INT,
                "4096",
                Range.atLeast(0),
                a,
                "Bytes between two index entries.",
                "log.index.interval.bytes");
        def(
                m,
                DELETE_RETENTION_MS,
                Type.LONG,
                "86400000",
                Range.atLeast(0),
                a,
                "How long a compacted topic keeps a tombstone (and a transaction marker) after"
                        + " the cleaner reached it; consumers that read from the start within"
                        + " this time see every delete.",
                "log.cleaner.delete.retention.ms");
        def(
                m,
                MIN_COMPACTION_LAG_MS,
                Type.LONG,
                "0",
                Range.atLeast(0),
                a,
                "A record stays uncompacted at least this long after it was appended.",
                "log.cleaner.min.compaction.lag.ms");
        def(
                m,
                MAX_COMPACTION_LAG_MS,
                Type.LONG,
                Long.toString(max),
                Range.atLeast(1),
                a,
                "A record is eligible for compaction at most this long after it was appended,"
                        + " whatever the dirty ratio (it also caps segment.ms of compacted"
                        + " topics).",
                "log.cleaner.max.compaction.lag.ms");
        def(
                m,
                FILE_DELETE_DELAY_MS,
                Type.LONG,
                "60000",
                Range.atLeast(0),
                a,
                "Delay before a deleted segment's files are removed.",
                "log.segment.delete.delay.ms");
        def(
                m,
                MIN_CLEANABLE_DIRTY_RATIO,
                Type.DOUBLE,
                "0.5",
                Range.between(0, 1),
                a,
                "The cleaner compacts a partition once the uncleaned share of its log (dirty"
                        + " bytes over cleaned plus dirty bytes) reaches this ratio.",
                "log.cleaner.min.cleanable.ratio");
        def(
                m,
                CLEANUP_POLICY,
                Type.LIST,
                CLEANUP_DELETE,
                ValidList.in(CLEANUP_COMPACT, CLEANUP_DELETE),
                a,
                "delete: drop old segments by retention.ms/retention.bytes; compact: keep the"
                        + " latest record per key, in both tiers; compact,delete: both. An empty"
                        + " policy (no cleanup) is refused.",
                "log.cleanup.policy");
        def(
                m,
                UNCLEAN_LEADER_ELECTION_ENABLE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Replication setting (a single node has no other replica).",
                "unclean.leader.election.enable");
        def(
                m,
                MIN_INSYNC_REPLICAS,
                Type.INT,
                "1",
                Range.atLeast(1),
                a,
                "A single node is always in sync: acks=all never waits for another replica.",
                "min.insync.replicas");
        def(
                m,
                COMPRESSION_TYPE,
                Type.STRING,
                "producer",
                ValidString.in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
                a,
                "Codec of stored batches; producer keeps the producer's.",
                "compression.type");
        def(
                m,
                COMPRESSION_GZIP_LEVEL,
                Type.INT,
                "-1",
                KafkaConfigValidators.gzipLevel(),
                a,
                "Level of gzip recompression.",
                "compression.gzip.level");
        def(
                m,
                COMPRESSION_LZ4_LEVEL,
                Type.INT,
                "9",
                Range.between(1, 17),
                a,
                "Level of lz4 recompression.",
                "compression.lz4.level");
        def(
                m,
                COMPRESSION_ZSTD_LEVEL,
                Type.INT,
                "3",
                Range.between(-131072, 22),
                a,
                "Level of zstd recompression.",
                "compression.zstd.level");
        def(
                m,
                PREALLOCATE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Accepted; segments are not preallocated.",
                "log.preallocate");
        def(
                m,
                MESSAGE_TIMESTAMP_TYPE,
                Type.STRING,
                "CreateTime",
                ValidString.in("CreateTime", "LogAppendTime"),
                a,
                "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's.",
                "log.message.timestamp.type");
        def(
                m,
                MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                Type.LONG,
                Long.toString(max),
                Range.atLeast(0),
                a,
                "CreateTime may be at most this much older than the broker clock.",
                "log.message.timestamp.before.max.ms");
        def(
                m,
                MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                Type.LONG,
                "3600000",
                Range.atLeast(0),
                a,
                "CreateTime may be at most this much ahead of the broker clock.",
                "log.message.timestamp.after.max.ms");
        def(
                m,
                LEADER_REPLICATION_THROTTLED_REPLICAS,
                Type.LIST,
                "",
                KafkaConfigValidators.throttledReplicas(),
                i,
                "Replication throttle (a single node does not replicate).");
        def(
                m,
                FOLLOWER_REPLICATION_THROTTLED_REPLICAS,
                Type.LIST,
                "",
                KafkaConfigValidators.throttledReplicas(),
                i,
                "Replication throttle (a single node does not replicate).");
        def(
                m,
                REMOTE_STORAGE_ENABLE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Accepted; tierlog tiers every topic when tiered.enabled is set.");
        def(
                m,
                LOCAL_RETENTION_MS,
                Type.LONG,
                "-2",
                Range.atLeast(-2),
                a,
                "Local (hot tier) retention by time; -2 takes retention.ms.",
                "log.local.retention.ms");
        def(
                m,
                LOCAL_RETENTION_BYTES,
                Type.LONG,
                "-2",
                Range.atLeast(-2),
                a,
                "Local (hot tier) retention by size; -2 takes retention.bytes.",
                "log.local.retention.bytes");
        def(
                m,
                REMOTE_LOG_COPY_DISABLE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Accepted; offload is a server setting.");
        def(
                m,
                REMOTE_COPY_LAG_MS,
                Type.LONG,
                "0",
                Range.atLeast(-1),
                i,
                "Accepted; offload timing is a server setting.",
                "log.remote.copy.lag.ms");
        def(
                m,
                REMOTE_COPY_LAG_BYTES,
                Type.LONG,
                "-1",
                Range.atLeast(-1),
                i,
                "Accepted; offload timing is a server setting.",
                "log.remote.copy.lag.bytes");
        def(
                m,
                REMOTE_LOG_DELETE_ON_DISABLE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Accepted; offload is a server setting.");
        def(
                m,
                ERRORS_DEADLETTERQUEUE_GROUP_ENABLE,
                Type.BOOLEAN,
                "false",
                null,
                i,
                "Share-group dead-letter queue (no share groups).");
        return Collections.unmodifiableMap(m);
    }

    private static void def(
            Map<String, Def> m,
            String name,
            Type type,
            String kafkaDefault,
            Validator validator,
            Effect effect,
            String doc,
            String... brokerSynonyms) {
        m.put(
                name,
                new Def(name, type, kafkaDefault, validator, List.of(brokerSynonyms), effect, doc));
    }

    /** Every Kafka topic config, in Kafka's order. */
    public static Collection<Def> all() {
        return DEFS.values();
    }

    /** The Kafka topic config named {@code name}. */
    public static Optional<Def> def(String name) {
        return Optional.ofNullable(DEFS.get(name));
    }

    /** The topic config whose dynamic broker key is {@code brokerKey} (first synonym). */
    public static Optional<Def> forBrokerKey(String brokerKey) {
        for (Def d : DEFS.values()) {
            if (d.brokerKey().filter(brokerKey::equals).isPresent()) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code policy} (a {@code cleanup.policy} value) is one tierlog cannot honour: Kafka's
     * empty list (no cleanup at all). {@code delete}, {@code compact} and both are honoured.
     */
    public static boolean isUnsupportedPolicy(String policy) {
        return policy.trim().isEmpty();
    }

    /** Whether {@code policy} (a {@code cleanup.policy} value) asks for compaction. */
    public static boolean isCompacted(String policy) {
        for (String p : policy.split(",")) {
            if (p.trim().toLowerCase(Locale.ROOT).equals(CLEANUP_COMPACT)) {
                return true;
            }
        }
        return false;
    }

    /** Topic configs of an older tierlog release renamed to Kafka's names (old key to new). */
    public static Map<String, String> upgrade(Map<String, String> configs) {
        if (!configs.containsKey(LEGACY_MESSAGE_MAX_BYTES)) {
            return configs;
        }
        Map<String, String> out = new LinkedHashMap<>(configs);
        String v = out.remove(LEGACY_MESSAGE_MAX_BYTES);
        out.putIfAbsent(MAX_MESSAGE_BYTES, v);
        return out;
    }
}
