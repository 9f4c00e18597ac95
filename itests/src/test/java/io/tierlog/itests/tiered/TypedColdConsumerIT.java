package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.tierlog.common.Config;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.MetricNames;
import io.tierlog.engine.TieredLog;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.registry.SchemaType;
import io.tierlog.server.TierlogServer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka consumer reading the cold tier gets the produced Avro values byte for byte, whether the
 * offload stored them once (typed only, rebuilt on read: the default) or twice (topic config {@code
 * cold.typed.one.copy=false}): a real Java producer and consumer over the Kafka protocol, the
 * schema registered in the server's registry, offload and local retention in the background.
 */
class TypedColdConsumerIT {
    static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                    + "{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"long\"},"
                    + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
                    + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    static final int N = 20_000;

    @TempDir Path dir;

    private static Map<Long, byte[]> values(int schemaId) throws Exception {
        Schema schema = new Schema.Parser().parse(SCHEMA);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        Random rnd = new Random(17);
        Map<Long, byte[]> out = new HashMap<>();
        for (long i = 0; i < N; i++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("id", "order-" + i);
            r.put("amount", (long) rnd.nextInt(1_000_000));
            r.put("tags", rnd.nextBoolean() ? List.of() : List.of("t" + rnd.nextInt(9)));
            r.put("note", rnd.nextInt(3) == 0 ? "gift" : null);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(0);
            b.write(ByteBuffer.allocate(4).putInt(schemaId).array());
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(b, null);
            writer.write(r, enc);
            enc.flush();
            out.put(i, b.toByteArray());
        }
        return out;
    }

    private static double counter(TieredLog log, String stored) {
        Counter c =
                log.meterRegistry()
                        .find(MetricNames.OFFLOAD_TYPED_RECORDS)
                        .tags("part", "value", "stored", stored)
                        .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void consumersGetByteIdenticalValuesFromTheColdTierWithAndWithoutOneCopy() throws Exception {
        Map<String, String> s = TieredServers.settings(dir.resolve("data"), 0, 64 << 10);
        s.put("local.retention.bytes", Integer.toString(128 << 10));
        s.put("offload.target.object.bytes", Integer.toString(256 << 10));
        TierlogServer server = TierlogServer.start(Config.of(s));
        String bootstrap = "127.0.0.1:" + server.port();
        try {
            TieredLog log = server.engine();
            log.createTopic("once", 1, Map.of());
            log.createTopic("twice", 1, Map.of("cold.typed.one.copy", "false"));
            int id = 0;
            for (String topic : List.of("once", "twice")) {
                id =
                        log.schemaRegistry()
                                .register(
                                        topic + "-value", SchemaType.AVRO, SCHEMA, List.of(), false)
                                .schema()
                                .id();
            }
            Map<Long, byte[]> values = values(id); // one id: the same schema under both subjects
            for (String topic : List.of("once", "twice")) {
                TieredServers.produce(bootstrap, topic, 0, N, i -> values.get(i));
            }
            for (String topic : List.of("once", "twice")) {
                TieredWaits.awaitOffloaded(
                        server, topic, (128 << 10) + (64 << 10), Duration.ofMinutes(2));
            }
            assertThat(counter(log, "once")).as("values stored once").isPositive();
            assertThat(counter(log, "twice")).as("values of 'twice' kept raw").isPositive();
            for (String topic : List.of("once", "twice")) {
                TopicPartition tp = new TopicPartition(topic, 0);
                LogOffsets o = log.offsets(tp);
                assertThat(o.hotLogStartOffset())
                        .as("%s: old offsets only cold", topic)
                        .isPositive();
                try (KafkaConsumer<byte[], byte[]> consumer =
                        TieredServers.consumer(bootstrap, Map.of())) {
                    consumer.assign(List.of(tp));
                    consumer.seekToBeginning(List.of(tp));
                    TieredWaits.readInOrder(
                            consumer,
                            0,
                            N,
                            Duration.ofMinutes(2),
                            TieredServers.produced(values::get));
                }
            }
        } finally {
            server.close();
        }
    }
}
