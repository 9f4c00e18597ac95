package io.tierlog.common;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A curated list of Apache Kafka broker settings that tierlog does not implement, so that a Kafka
 * {@code server.properties} given to {@code tierlog serve --config} is accepted (each such key only
 * warns that it has no effect) while a typo is still an error ({@link ConfigKeys}).
 *
 * <p>Where it comes from: the keys of Kafka's shipped {@code config/server.properties} and {@code
 * config/kraft/*.properties} (3.x and 4.0), plus the broker settings of the "Broker Configs" table
 * of the Kafka documentation (https://kafka.apache.org/documentation/#brokerconfigs) that such
 * files commonly carry. It is deliberately not the whole table; add a key here when a real Kafka
 * config file trips over it. Keys tierlog declares itself (for example {@code listeners}, {@code
 * num.partitions}, {@code message.max.bytes}) are not listed: they take effect and need no entry.
 *
 * <p>Where tierlog has a setting that does the same job (Kafka's broker-wide {@code log.*} topic
 * defaults are tierlog's topic-level names), the entry names it, and the warning says so.
 *
 * <p>Immutable; thread-safe.
 */
public final class KafkaConfigKeys {
    private KafkaConfigKeys() {}

    /** Kafka key to tierlog's equivalent key, or to "" when tierlog has none. */
    private static final Map<String, String> KEYS = build();

    private static Map<String, String> build() {
        Map<String, String> m = new TreeMap<>();
        // Kafka's broker-wide defaults of topic settings: tierlog takes the topic-level name.
        m.put("log.dir", "data.dir");
        m.put("log.dirs", "data.dir");
        m.put("log.segment.bytes", "segment.bytes");
        m.put("log.roll.ms", "segment.ms");
        m.put("log.roll.hours", "segment.ms");
        m.put("log.roll.jitter.ms", "segment.jitter.ms");
        m.put("log.roll.jitter.hours", "segment.jitter.ms");
        m.put("log.retention.ms", "retention.ms");
        m.put("log.retention.minutes", "retention.ms");
        m.put("log.retention.hours", "retention.ms");
        m.put("log.retention.bytes", "retention.bytes");
        m.put("log.retention.check.interval.ms", "retention.check.interval.ms");
        m.put("log.local.retention.ms", "local.retention.ms");
        m.put("log.local.retention.bytes", "local.retention.bytes");
        m.put("log.index.interval.bytes", "index.interval.bytes");
        m.put("log.index.size.max.bytes", "segment.index.bytes");
        m.put("log.flush.interval.messages", "flush.messages");
        m.put("log.flush.interval.ms", "flush.ms");
        m.put("log.segment.delete.delay.ms", "file.delete.delay.ms");
        m.put("log.cleanup.policy", "cleanup.policy");
        m.put("log.message.timestamp.type", "message.timestamp.type");
        m.put("log.message.timestamp.before.max.ms", "message.timestamp.before.max.ms");
        m.put("log.message.timestamp.after.max.ms", "message.timestamp.after.max.ms");
        m.put("remote.log.storage.system.enable", "tiered.enabled");
        // Settings with no tierlog counterpart (cluster, replication, security, internals).
        for (String k :
                new String[] {
                    "allow.everyone.if.no.acl.found",
                    "authorizer.class.name",
                    "auto.leader.rebalance.enable",
                    "background.threads",
                    "broker.id",
                    "broker.rack",
                    "controller.listener.names",
                    "controller.quorum.bootstrap.servers",
                    "controller.quorum.voters",
                    "default.replication.factor",
                    "group.initial.rebalance.delay.ms",
                    "group.max.session.timeout.ms",
                    "group.min.session.timeout.ms",
                    "inter.broker.listener.name",
                    "inter.broker.protocol.version",
                    "listener.security.protocol.map",
                    "log.cleaner.enable",
                    "log.cleaner.threads",
                    "log.flush.scheduler.interval.ms",
                    "log.message.format.version",
                    "log.preallocate",
                    "metadata.log.dir",
                    "metric.reporters",
                    "min.insync.replicas",
                    "num.io.threads",
                    "num.recovery.threads.per.data.dir",
                    "num.replica.alter.log.dirs.threads",
                    "num.replica.fetchers",
                    "offsets.retention.minutes",
                    "offsets.topic.num.partitions",
                    "offsets.topic.replication.factor",
                    "process.roles",
                    "remote.log.manager.task.interval.ms",
                    "remote.log.metadata.manager.class.name",
                    "remote.log.storage.manager.class.name",
                    "replica.fetch.max.bytes",
                    "replica.lag.time.max.ms",
                    "request.timeout.ms",
                    "sasl.enabled.mechanisms",
                    "sasl.mechanism.inter.broker.protocol",
                    "security.inter.broker.protocol",
                    "socket.receive.buffer.bytes",
                    "socket.send.buffer.bytes",
                    "ssl.key.password",
                    "ssl.keystore.location",
                    "ssl.keystore.password",
                    "ssl.truststore.location",
                    "ssl.truststore.password",
                    "super.users",
                    "transaction.state.log.min.isr",
                    "transaction.state.log.num.partitions",
                    "transaction.state.log.replication.factor",
                    "transactional.id.expiration.ms",
                    "unclean.leader.election.enable",
                    "zookeeper.connect",
                    "zookeeper.connection.timeout.ms",
                    "zookeeper.session.timeout.ms",
                }) {
            m.put(k, "");
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** Whether {@code key} is one of the listed Kafka broker settings. */
    public static boolean contains(String key) {
        return KEYS.containsKey(key);
    }

    /** The tierlog setting that does the job of Kafka's {@code key}, if any. */
    public static Optional<String> tierlogEquivalent(String key) {
        String e = KEYS.get(key);
        return e == null || e.isEmpty() ? Optional.empty() : Optional.of(e);
    }

    /** Every listed key, sorted. */
    public static java.util.Set<String> keys() {
        return KEYS.keySet();
    }
}
