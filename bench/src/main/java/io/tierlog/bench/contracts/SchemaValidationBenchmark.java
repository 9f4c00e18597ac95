package io.tierlog.bench.contracts;

import io.tierlog.common.Config;
import io.tierlog.engine.Appended;
import io.tierlog.engine.TieredLog;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What produce-time schema validation ({@code confluent.value.schema.validation=true}) costs per
 * record: {@code TieredLog.appendWithoutBlocking} (the network thread's path) of uncompressed
 * batches of 100 records (10 KiB or 100 KiB) to a hot-only engine, into a topic without validation
 * ({@code plain}), with validation of Avro-framed values ({@code avro}) and of Protobuf-framed
 * values, whose message indexes are read too ({@code protobuf}). Scores are nanoseconds per record;
 * the cost of validation is a validated score minus {@code plain}'s. The registry's memory is warm,
 * as it is after the first batch of a producer (a miss hops to the blocking executor once). Every
 * iteration starts from an empty log.
 *
 * <p>Thread-safety: JMH states as declared (one appender thread).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SchemaValidationBenchmark {

    /** The record size under test: value bytes, header included. */
    @State(Scope.Benchmark)
    public static class Shape {
        @Param({"100", "1024"})
        public int recordSize;
    }

    /** A hot-only engine with the three topics and their schemas; fresh every iteration. */
    @State(Scope.Benchmark)
    public static class Engine {
        Path dir;
        TieredLog log;
        int avroId;
        int protobufId;
        ByteBuffer plainBatch;
        ByteBuffer avroBatch;
        ByteBuffer protobufBatch;

        @Setup(Level.Iteration)
        public void open(Shape shape) throws IOException {
            Path base = Path.of(System.getProperty("tierlog.bench.dir", "target/jmh-data"));
            Files.createDirectories(base);
            dir = Files.createTempDirectory(base, "schema-validation-");
            log =
                    TieredLog.open(
                            Config.of(
                                    Map.of(
                                            "data.dir",
                                            dir.toString(),
                                            "tiered.enabled",
                                            "false",
                                            "engine.background.enabled",
                                            "false",
                                            "segment.bytes",
                                            Integer.toString(1 << 30))));
            Map<String, String> validated = Map.of("confluent.value.schema.validation", "true");
            log.createTopic("plain", 1, Map.of());
            log.createTopic("avro", 1, validated);
            log.createTopic("protobuf", 1, validated);
            CatalogSchemaRegistry registry = log.schemaRegistry();
            avroId =
                    registry.register(
                                    "avro-value",
                                    SchemaType.AVRO,
                                    "{\"type\":\"record\",\"name\":\"Order\",\"fields\":"
                                            + "[{\"name\":\"note\",\"type\":\"string\"}]}",
                                    List.of(),
                                    false)
                            .schema()
                            .id();
            protobufId =
                    registry.register(
                                    "protobuf-value",
                                    SchemaType.PROTOBUF,
                                    "syntax = \"proto3\";\nmessage Order {\n  string note = 1;\n}\n",
                                    List.of(),
                                    false)
                            .schema()
                            .id();
            plainBatch = batch(shape.recordSize, null);
            avroBatch = batch(shape.recordSize, WireFormat.header(avroId, null));
            protobufBatch = batch(shape.recordSize, WireFormat.header(protobufId, List.of(0)));
            // warm the registry's memory, as a producer's first batch does
            append(new TopicPartition("avro", 0), avroBatch);
            append(new TopicPartition("protobuf", 0), protobufBatch);
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            log.close();
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }

        /** The event loop's append; the blocking one when that declines (a roll). */
        Appended append(TopicPartition tp, ByteBuffer batch) throws IOException {
            ByteBuffer b = batch.duplicate();
            Optional<Appended> done = log.appendWithoutBlocking(tp, b);
            return done.isPresent() ? done.get() : log.append(tp, batch.duplicate());
        }
    }

    /**
     * A batch of {@link #RECORDS} records whose values are {@code header} (none when null) and
     * filler up to {@code recordSize} bytes.
     */
    static ByteBuffer batch(int recordSize, byte[] header) {
        int n = RECORDS;
        List<SimpleRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[recordSize];
            java.util.Arrays.fill(v, (byte) ('a' + i % 26));
            if (header != null) {
                System.arraycopy(header, 0, v, 0, header.length);
            }
            records.add(new SimpleRecord(System.currentTimeMillis(), null, v));
        }
        return MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]))
                .buffer();
    }

    /** Records per batch: the scores are per record. */
    static final int RECORDS = 100;

    private static final TopicPartition PLAIN = new TopicPartition("plain", 0);
    private static final TopicPartition AVRO = new TopicPartition("avro", 0);
    private static final TopicPartition PROTOBUF = new TopicPartition("protobuf", 0);

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(RECORDS)
    public Appended plain(Engine e) throws IOException {
        return e.append(PLAIN, e.plainBatch);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(RECORDS)
    public Appended avro(Engine e) throws IOException {
        return e.append(AVRO, e.avroBatch);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(RECORDS)
    public Appended protobuf(Engine e) throws IOException {
        return e.append(PROTOBUF, e.protobufBatch);
    }
}
