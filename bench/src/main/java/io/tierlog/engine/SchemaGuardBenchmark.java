package io.tierlog.engine;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.common.Config;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The write door's schema check alone ({@code SchemaGuard.check}, package-private, hence this
 * package), in nanoseconds per record: batches of 100 records checked against a real catalog-backed
 * registry (SQLite) whose memory is warm, as on the network thread after a producer's first batch.
 * {@code off}: a topic without validation (one rules lookup per batch); {@code avro}: Avro-framed
 * values (header, id looked up in memory); {@code protobuf}: also the message indexes read; {@code
 * avroZstd}: the batch zstd-compressed, so the check decompresses it. What an append costs besides
 * is {@code SchemaValidationBenchmark}'s {@code plain} score.
 *
 * <p>Thread-safety: JMH states as declared (one thread).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SchemaGuardBenchmark {
    /** Records per batch: the scores are per record. */
    static final int RECORDS = 100;

    private static final TopicPartition OFF = new TopicPartition("off", 0);
    private static final TopicPartition AVRO = new TopicPartition("avro", 0);
    private static final TopicPartition PROTOBUF = new TopicPartition("protobuf", 0);

    /** The value size under test, header included. */
    @State(Scope.Benchmark)
    public static class Shape {
        @Param({"100", "1024"})
        public int recordSize;
    }

    /** The guard over a real registry, and the batches. */
    @State(Scope.Benchmark)
    public static class Guard {
        Path dir;
        Catalog catalog;
        SchemaGuard guard;
        ByteBuffer plain;
        ByteBuffer avro;
        ByteBuffer avroZstd;
        ByteBuffer protobuf;

        @Setup(Level.Trial)
        public void open(Shape shape) throws IOException {
            Path base = Path.of(System.getProperty("tierlog.bench.dir", "target/jmh-data"));
            Files.createDirectories(base);
            dir = Files.createTempDirectory(base, "schema-guard-");
            catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
            CatalogSchemaRegistry registry = CatalogSchemaRegistry.open(catalog);
            int avroId =
                    registry.register(
                                    "avro-value",
                                    SchemaType.AVRO,
                                    "{\"type\":\"record\",\"name\":\"Order\",\"fields\":"
                                            + "[{\"name\":\"note\",\"type\":\"string\"}]}",
                                    List.of(),
                                    false)
                            .schema()
                            .id();
            int protobufId =
                    registry.register(
                                    "protobuf-value",
                                    SchemaType.PROTOBUF,
                                    "syntax = \"proto3\";\nmessage Order {\n  string note = 1;\n}\n",
                                    List.of(),
                                    false)
                            .schema()
                            .id();
            TopicConfigs configs = new TopicConfigs(Config.empty(), catalog);
            Map<String, String> on = Map.of("confluent.value.schema.validation", "true");
            configs.put("avro", on);
            configs.put("protobuf", on);
            guard = new SchemaGuard(configs, () -> registry, new SimpleMeterRegistry());
            plain = batch(shape.recordSize, null, Compression.NONE);
            avro = batch(shape.recordSize, WireFormat.header(avroId, null), Compression.NONE);
            avroZstd =
                    batch(
                            shape.recordSize,
                            WireFormat.header(avroId, null),
                            Compression.zstd().build());
            protobuf =
                    batch(
                            shape.recordSize,
                            WireFormat.header(protobufId, List.of(0)),
                            Compression.NONE);
            // warm the registry's memory (a blocking lookup), as a producer's first batch does
            if (!guard.check(AVRO, avro, true) || !guard.check(PROTOBUF, protobuf, true)) {
                throw new IllegalStateException("the valid batches were not accepted");
            }
            if (!guard.check(AVRO, avro, false) || !guard.check(PROTOBUF, protobuf, false)) {
                throw new IllegalStateException("the registry's memory is not warm");
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            catalog.close();
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    static ByteBuffer batch(int recordSize, byte[] header, Compression compression) {
        List<SimpleRecord> records = new ArrayList<>(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            byte[] v = new byte[recordSize];
            Arrays.fill(v, (byte) ('a' + i % 26));
            if (header != null) {
                System.arraycopy(header, 0, v, 0, header.length);
            }
            records.add(new SimpleRecord(1_700_000_000_000L + i, null, v));
        }
        return MemoryRecords.withRecords(compression, records.toArray(new SimpleRecord[0]))
                .buffer();
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public boolean off(Guard g) {
        return g.guard.check(OFF, g.plain, false);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public boolean avro(Guard g) {
        return g.guard.check(AVRO, g.avro, false);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public boolean avroZstd(Guard g) {
        return g.guard.check(AVRO, g.avroZstd, false);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public boolean protobuf(Guard g) {
        return g.guard.check(PROTOBUF, g.protobuf, false);
    }
}
