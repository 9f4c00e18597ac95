package io.tierlog.itests.upgrade;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The state of a server as Kafka clients see it, flattened into sorted {@code key=value} pairs so
 * that the state before an upgrade (recorded by {@link FixtureGenerator} with the old release) and
 * after it (read by {@link UpgradeFrom50e958aIT} from the new code) compare key by key.
 *
 * <p>Keys: {@code topics} (sorted names); {@code topic.<t>.id}, {@code topic.<t>.partitions},
 * {@code topic.<t>.config.<key>} (only configs whose source is the topic itself, values as
 * DescribeConfigs renders them); {@code partition.<t>-<p>.} {@code earliest} and {@code end}
 * (ListOffsets), {@code count}, {@code first}, {@code last}, {@code sha256} (every record read by a
 * consumer from the earliest offset to the end, see {@link PartitionDigest}); {@code
 * group.<g>.<t>-<p>.offset} and {@code .metadata} (committed offsets). Stateless.
 */
final class ClusterState {
    private ClusterState() {}

    /** Reads everything listed above from the server at {@code bootstrap}. */
    static TreeMap<String, String> capture(String bootstrap, Collection<String> groups)
            throws Exception {
        TreeMap<String, String> s = new TreeMap<>();
        try (Admin admin = admin(bootstrap)) {
            TreeSet<String> topics =
                    new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            s.put("topics", String.join(",", topics));
            Map<String, TopicDescription> desc =
                    admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            List<TopicPartition> partitions = new ArrayList<>();
            for (TopicDescription d : desc.values()) {
                s.put("topic." + d.name() + ".id", d.topicId().toString());
                s.put("topic." + d.name() + ".partitions", Integer.toString(d.partitions().size()));
                d.partitions()
                        .forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition())));
            }
            List<ConfigResource> resources =
                    topics.stream()
                            .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                            .collect(Collectors.toList());
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            for (Map.Entry<ConfigResource, Config> e : configs.entrySet()) {
                for (ConfigEntry c : e.getValue().entries()) {
                    if (c.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
                        s.put("topic." + e.getKey().name() + ".config." + c.name(), c.value());
                    }
                }
            }
            Map<TopicPartition, OffsetSpec> earliest = new TreeMap<>(ClusterState::compare);
            Map<TopicPartition, OffsetSpec> latest = new TreeMap<>(ClusterState::compare);
            for (TopicPartition tp : partitions) {
                earliest.put(tp, OffsetSpec.earliest());
                latest.put(tp, OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResultInfo> first =
                    admin.listOffsets(earliest).all().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, ListOffsetsResultInfo> end =
                    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : partitions) {
                s.put(key(tp, "earliest"), Long.toString(first.get(tp).offset()));
                s.put(key(tp, "end"), Long.toString(end.get(tp).offset()));
                digest(bootstrap, tp, end.get(tp).offset(), s);
            }
            for (String g : groups) {
                Map<TopicPartition, OffsetAndMetadata> committed =
                        admin.listConsumerGroupOffsets(g)
                                .partitionsToOffsetAndMetadata()
                                .get(30, TimeUnit.SECONDS);
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                    if (e.getValue() == null) {
                        continue;
                    }
                    String k = "group." + g + "." + e.getKey();
                    s.put(k + ".offset", Long.toString(e.getValue().offset()));
                    String meta = e.getValue().metadata();
                    s.put(k + ".metadata", meta == null ? "" : meta);
                }
            }
        }
        return s;
    }

    /** Consumes {@code tp} from its earliest offset up to {@code end} and records its digest. */
    private static void digest(
            String bootstrap, TopicPartition tp, long end, Map<String, String> out) {
        PartitionDigest d = new PartitionDigest();
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (c.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            tp
                                    + ": read up to "
                                    + c.position(tp)
                                    + " of end offset "
                                    + end
                                    + " within 120 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.offset() < end) {
                        d.add(r);
                    }
                }
            }
        }
        out.put(key(tp, "count"), Long.toString(d.count()));
        out.put(key(tp, "first"), Long.toString(d.first()));
        out.put(key(tp, "last"), Long.toString(d.last()));
        out.put(key(tp, "sha256"), d.finish());
    }

    static String key(TopicPartition tp, String field) {
        return "partition." + tp + "." + field;
    }

    private static int compare(TopicPartition a, TopicPartition b) {
        int c = a.topic().compareTo(b.topic());
        return c != 0 ? c : Integer.compare(a.partition(), b.partition());
    }

    static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("default.api.timeout.ms", 60_000);
        return Admin.create(p);
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Writes {@code state} as sorted {@code key=value} lines (Java properties escaping). */
    static void write(Path file, Map<String, String> state, String comment) throws IOException {
        StringBuilder b = new StringBuilder();
        for (String line : comment.split("\n")) {
            b.append("# ").append(line).append('\n');
        }
        for (Map.Entry<String, String> e : new TreeMap<>(state).entrySet()) {
            // Properties escapes one pair at a time; its date comment line is dropped.
            Properties one = new Properties();
            one.setProperty(e.getKey(), e.getValue());
            java.io.StringWriter w = new java.io.StringWriter();
            one.store(w, null);
            String stored = w.toString();
            b.append(stored.substring(stored.indexOf('\n') + 1));
        }
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(b.toString());
        }
    }

    static TreeMap<String, String> read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        TreeMap<String, String> m = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        return m;
    }
}
