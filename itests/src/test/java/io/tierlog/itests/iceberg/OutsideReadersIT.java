package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.PartitionReport;
import io.tierlog.engine.TieredLog;
import io.tierlog.iceberg.PartitionTableState;
import io.tierlog.iceberg.TableState;
import io.tierlog.iceberg.TopicTables;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.registry.SchemaType;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import io.tierlog.server.TierlogServer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's proof that a topic is a table anyone can read: after a real Kafka producer wrote to a
 * tierlog server and the cold objects were registered, three readers that know nothing of tierlog
 * see exactly what a Kafka consumer reads from offset 0:
 *
 * <ul>
 *   <li>Spark 4.1 with Iceberg's runtime, as a child JVM (count, min/max of {@code offset} per
 *       {@code partition_id}, the value bytes, time travel to an earlier snapshot, and an aggregate
 *       over a typed {@code value_record} field of an Avro topic);
 *   <li>IcebergGenerics over JdbcCatalog and S3FileIO in another child JVM (the same, per
 *       partition, now and at the earlier snapshot);
 *   <li>DuckDB on the data files the table lists (no partition column: compared per file).
 * </ul>
 *
 * <p>Spark starts once (10-40 s) for every query. The readers were first proven on a table written
 * with Iceberg's own generic writers (commit 5a7c315, IcebergApiFixture), dropped to keep one Spark
 * start per run.
 */
class OutsideReadersIT {
    private static final String TYPED_SCHEMA =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"long\"}]}";

    @TempDir Path dir;

    /** What a reader must see of one partition. */
    record PartitionStats(int partition, long count, long minOffset, long maxOffset, long bytes) {
        static PartitionStats of(JsonNode n) {
            return new PartitionStats(
                    n.get("partition_id").asInt(),
                    n.get("count").asLong(),
                    n.get("min_offset").asLong(),
                    n.get("max_offset").asLong(),
                    n.get("value_bytes").asLong());
        }
    }

    @Test
    void sparkGenericsAndDuckDbReadWhatAKafkaConsumerReads() throws Exception {
        long started = System.nanoTime();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.start(dir.resolve("s3"))) {
            Map<String, String> s =
                    TieredServers.settings(dir.resolve("data"), 0, 32 << 10); // small segments
            s.putAll(s3.clientConfig().asMap());
            s.put("segment.ms", "1000"); // the housekeeping roll sends the tails cold too
            s.put("iceberg.catalog.uri", "jdbc:sqlite:" + dir.resolve("iceberg.db"));
            s.put("iceberg.warehouse", "s3://" + s3.bucket() + "/iceberg");
            s.put("iceberg.freshness.target.ms", "2000");
            TierlogServer server = TierlogServer.start(Config.of(s));
            String bootstrap = "127.0.0.1:" + server.port();
            try {
                TieredLog log = server.engine();
                TopicTables tables = log.topicTables();
                int partitions = 3;
                log.createTopic("events", partitions, Map.of());
                log.createTopic("orders", 1, Map.of());
                int schemaId =
                        log.schemaRegistry()
                                .register(
                                        "orders-value",
                                        SchemaType.AVRO,
                                        TYPED_SCHEMA,
                                        List.of(),
                                        false)
                                .schema()
                                .id();

                Random rnd = new Random(13);
                produce(bootstrap, "events", partitions, 3_000, rnd);
                awaitRegistered(server, tables, "events");
                TableState first = tables.state("events").orElseThrow();
                long firstSnapshot = first.snapshotId().orElseThrow();
                long firstCount =
                        consumed(bootstrap, "events", partitions).values().stream()
                                .mapToLong(PartitionStats::count)
                                .sum();

                produce(bootstrap, "events", partitions, 4_000, rnd);
                long amounts = produceOrders(bootstrap, schemaId, 2_000, rnd);
                awaitRegistered(server, tables, "events");
                awaitRegistered(server, tables, "orders");
                Map<Integer, PartitionStats> expected = consumed(bootstrap, "events", partitions);
                assertThat(tables.state("events").orElseThrow().snapshotId().orElseThrow())
                        .as("a later snapshot")
                        .isNotEqualTo(firstSnapshot);

                ReaderCatalog catalog =
                        new ReaderCatalog(
                                "jdbc:sqlite:" + dir.resolve("iceberg.db"),
                                "s3://" + s3.bucket() + "/iceberg",
                                s3.endpoint().toString(),
                                s3.accessKey(),
                                s3.secretKey());
                checkReaders(
                        catalog,
                        "tierlog.events",
                        expected,
                        firstSnapshot,
                        firstCount,
                        s3,
                        List.of(
                                new TypedQuery(
                                        "SELECT sum(value_record.amount) AS s,"
                                                + " count(*) AS n FROM tierlog.tierlog.orders",
                                        row -> {
                                            assertThat(row.get("n").asLong())
                                                    .as("typed rows")
                                                    .isEqualTo(2_000);
                                            assertThat(row.get("s").asLong())
                                                    .as("sum(value_record.amount)")
                                                    .isEqualTo(amounts);
                                        })));
            } finally {
                server.close();
            }
        }
        System.out.printf(
                "OutsideReadersIT: tierlog test took %d s%n",
                Duration.ofNanos(System.nanoTime() - started).toSeconds());
    }

    /** A further Spark query of a test, run in the same Spark session, and its check. */
    record TypedQuery(String sql, java.util.function.Consumer<JsonNode> check) {}

    /**
     * Runs IcebergGenerics (child JVM), DuckDB (here) and Spark (child JVM) over {@code table} and
     * checks each against {@code expected} (the current snapshot) and {@code earlierCount} (rows at
     * {@code earlierSnapshot}).
     */
    private void checkReaders(
            ReaderCatalog catalog,
            String table,
            Map<Integer, PartitionStats> expected,
            long earlierSnapshot,
            long earlierCount,
            EmbeddedS3Server s3,
            List<TypedQuery> more)
            throws Exception {
        Path work = dir.resolve("readers");
        long total = expected.values().stream().mapToLong(PartitionStats::count).sum();
        long bytes = expected.values().stream().mapToLong(PartitionStats::bytes).sum();
        assertThat(earlierCount).as("the earlier snapshot has fewer rows").isLessThan(total);

        // 1. IcebergGenerics, another process
        List<String> args = new ArrayList<>(catalog.settings());
        args.add("table=" + table);
        args.add("at=" + earlierSnapshot);
        long t0 = System.nanoTime();
        ReaderProcess.Output generics =
                ReaderProcess.run(
                        work,
                        "generics",
                        List.of("-Xmx512m"),
                        System.getProperty("java.class.path"),
                        GenericsReaderMain.class.getName(),
                        args,
                        Duration.ofMinutes(3));
        System.out.printf(
                "OutsideReadersIT: IcebergGenerics child %d ms%n",
                Duration.ofNanos(System.nanoTime() - t0).toMillis());
        Map<Integer, PartitionStats> now = new TreeMap<>();
        long atEarlier = 0;
        Map<String, Long> files = new TreeMap<>();
        for (JsonNode n : generics.lines()) {
            if (n.has("file")) {
                files.put(n.get("file").asText(), n.get("records").asLong());
            } else if (n.has("at") && n.get("at").isTextual()) {
                PartitionStats p = PartitionStats.of(n);
                now.put(p.partition(), p);
            } else if (n.has("at")) {
                atEarlier += n.get("count").asLong();
            }
        }
        assertThat(now).as("IcebergGenerics, per partition").isEqualTo(expected);
        assertThat(atEarlier)
                .as("IcebergGenerics at snapshot %d", earlierSnapshot)
                .isEqualTo(earlierCount);
        assertThat(files.values().stream().mapToLong(Long::longValue).sum())
                .as("record counts of the live files")
                .isEqualTo(total);

        // 2. DuckDB on the data files, mapped from s3://<bucket>/<key> to the embedded S3's dir
        String list =
                files.keySet().stream()
                        .map(f -> "'" + local(s3, f) + "'")
                        .collect(Collectors.joining(","));
        Map<String, Long> duckCounts = new TreeMap<>();
        long duckBytes = 0;
        Properties dp = new Properties();
        dp.setProperty("autoinstall_known_extensions", "false");
        dp.setProperty("autoload_known_extensions", "false");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", dp);
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT filename, count(*), coalesce(sum(octet_length(value)), 0)"
                                        + " FROM read_parquet(["
                                        + list
                                        + "], union_by_name=true, filename=true)"
                                        + " GROUP BY filename")) {
            while (rs.next()) {
                duckCounts.put(rs.getString(1), rs.getLong(2));
                duckBytes += rs.getLong(3);
            }
        }
        Map<String, Long> wanted = new TreeMap<>();
        files.forEach((f, n) -> wanted.put(local(s3, f), n));
        assertThat(duckCounts).as("DuckDB rows per data file").isEqualTo(wanted);
        assertThat(duckBytes).as("DuckDB value bytes").isEqualTo(bytes);

        // 3. Spark, one session for every query
        String t = ReaderCatalog.NAME + "." + table;
        List<String> queries = new ArrayList<>();
        queries.add("SELECT count(*) AS n FROM " + t);
        queries.add(
                "SELECT partition_id, count(*) AS count, min(`offset`) AS min_offset,"
                        + " max(`offset`) AS max_offset,"
                        + " coalesce(sum(length(value)), 0) AS value_bytes FROM "
                        + t
                        + " GROUP BY partition_id ORDER BY partition_id");
        queries.add("SELECT count(*) AS n FROM " + t + " VERSION AS OF " + earlierSnapshot);
        more.forEach(q -> queries.add(q.sql()));
        t0 = System.nanoTime();
        List<List<JsonNode>> spark = SparkChild.query(work, catalog, queries);
        System.out.printf(
                "OutsideReadersIT: Spark child %d ms for %d queries%n",
                Duration.ofNanos(System.nanoTime() - t0).toMillis(), queries.size());
        assertThat(spark.get(0).get(0).get("n").asLong()).as("Spark count(*)").isEqualTo(total);
        Map<Integer, PartitionStats> sparkStats = new TreeMap<>();
        for (JsonNode row : spark.get(1)) {
            PartitionStats p = PartitionStats.of(row);
            sparkStats.put(p.partition(), p);
        }
        assertThat(sparkStats).as("Spark, per partition_id").isEqualTo(expected);
        assertThat(spark.get(2).get(0).get("n").asLong())
                .as("Spark VERSION AS OF %d", earlierSnapshot)
                .isEqualTo(earlierCount);
        for (int i = 0; i < more.size(); i++) {
            assertThat(spark.get(3 + i)).as(more.get(i).sql()).hasSize(1);
            more.get(i).check().accept(spark.get(3 + i).get(0));
        }
    }

    /** {@code s3://<bucket>/<key>} as the embedded S3 server's file. */
    private static String local(EmbeddedS3Server s3, String uri) {
        String prefix = "s3://" + s3.bucket() + "/";
        assertThat(uri).as("a data file in the bucket").startsWith(prefix);
        return s3.dir()
                .resolve(s3.bucket())
                .resolve(uri.substring(prefix.length()))
                .toAbsolutePath()
                .toString();
    }

    /**
     * Waits until every partition of {@code topic} is cold up to its high watermark (the active
     * segments rolled and offloaded) and every committed object is in the table.
     */
    private static void awaitRegistered(TierlogServer server, TopicTables tables, String topic) {
        TieredLog log = server.engine();
        Await.until(
                topic + " cold to the high watermark and registered",
                () -> {
                    List<PartitionReport> reports = log.inspect(Optional.of(topic));
                    Optional<TableState> state = tables.state(topic);
                    StringBuilder why = new StringBuilder();
                    boolean done = state.isPresent() && state.get().snapshotId().isPresent();
                    for (PartitionReport r : reports) {
                        int p = r.tp().partition();
                        long registered =
                                state.flatMap(
                                                st ->
                                                        st.partitions().stream()
                                                                .filter(x -> x.partition() == p)
                                                                .findFirst())
                                        .map(PartitionTableState::nextOffset)
                                        .orElse(-1L);
                        why.append(
                                String.format(
                                        " p%d hw=%d cold=%d table=%d;",
                                        p, r.highWatermark(), r.coldHighWatermark(), registered));
                        done &=
                                r.coldHighWatermark() == r.highWatermark()
                                        && registered == r.highWatermark();
                    }
                    state.flatMap(TableState::lastError)
                            .ifPresent(e -> why.append(" error ").append(e));
                    return done ? "done" : why.toString();
                },
                "done"::equals,
                Duration.ofMinutes(3));
    }

    /**
     * Produces {@code perPartition} records to each partition (null keys, values of 0-199 random
     * bytes, one in 17 null) with an idempotent acks=all producer, current timestamps.
     */
    private static void produce(
            String bootstrap, String topic, int partitions, int perPartition, Random rnd)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            List<Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < perPartition; i++) {
                for (int p = 0; p < partitions; p++) {
                    byte[] v = null;
                    if (rnd.nextInt(17) != 0) {
                        v = new byte[rnd.nextInt(200)];
                        rnd.nextBytes(v);
                    }
                    acks.add(producer.send(new ProducerRecord<>(topic, p, null, v)));
                }
            }
            producer.flush();
            for (Future<?> f : acks) {
                f.get();
            }
        }
    }

    /** Produces Avro orders (Confluent framing) to {@code orders}; returns the sum of amounts. */
    private static long produceOrders(String bootstrap, int schemaId, int count, Random rnd)
            throws Exception {
        Schema schema = new Schema.Parser().parse(TYPED_SCHEMA);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        long sum = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            List<Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                GenericRecord r = new GenericData.Record(schema);
                long amount = rnd.nextInt(1_000_000);
                sum += amount;
                r.put("id", "order-" + i);
                r.put("amount", amount);
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                b.write(0);
                b.write(ByteBuffer.allocate(4).putInt(schemaId).array());
                BinaryEncoder enc = EncoderFactory.get().binaryEncoder(b, null);
                writer.write(r, enc);
                enc.flush();
                acks.add(producer.send(new ProducerRecord<>("orders", 0, null, b.toByteArray())));
            }
            producer.flush();
            for (Future<?> f : acks) {
                f.get();
            }
        }
        return sum;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** What a Kafka consumer reads of every partition of {@code topic} from offset 0. */
    private static Map<Integer, PartitionStats> consumed(
            String bootstrap, String topic, int partitions) {
        Map<Integer, long[]> acc = new HashMap<>();
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = TieredServers.consumer(bootstrap, Map.of())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            Await.until(
                    topic + " read to the end",
                    () -> {
                        for (ConsumerRecord<byte[], byte[]> r :
                                consumer.poll(Duration.ofMillis(200))) {
                            long[] a =
                                    acc.computeIfAbsent(
                                            r.partition(),
                                            k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0});
                            a[0]++;
                            a[1] = Math.min(a[1], r.offset());
                            a[2] = Math.max(a[2], r.offset());
                            a[3] += r.value() == null ? 0 : r.value().length;
                        }
                        return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    },
                    Duration.ofMinutes(2));
        }
        Map<Integer, PartitionStats> out = new TreeMap<>();
        acc.forEach((p, a) -> out.put(p, new PartitionStats(p, a[0], a[1], a[2], a[3])));
        return out;
    }
}
