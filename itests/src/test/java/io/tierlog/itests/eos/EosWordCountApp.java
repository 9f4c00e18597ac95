package io.tierlog.itests.eos;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The Kafka Streams application of {@code StreamsEosIT}, run in a child JVM so that the test can
 * kill it with SIGKILL: an {@code exactly_once_v2} word count over {@link #IN} (key: a unique line
 * id, value: words) whose {@code groupBy} repartitions and whose count store has a changelog; it
 * writes each word's new count to {@link #COUNTS} and each line id it processed to {@link #IDS}, so
 * a duplicate shows there. Arguments: bootstrap servers, state dir, milliseconds to spend per line
 * (so that a kill lands mid-transaction). Runs until killed.
 */
public final class EosWordCountApp {
    static final String APP = "eos-wordcount";
    static final String IN = "eos-lines";
    static final String COUNTS = "eos-counts";
    static final String IDS = "eos-ids";

    private EosWordCountApp() {}

    public static void main(String[] args) throws Exception {
        long delayMs = Long.parseLong(args[2]);
        StreamsBuilder b = new StreamsBuilder();
        KStream<String, String> lines =
                b.<String, String>stream(IN)
                        .peek(
                                (id, text) -> {
                                    try {
                                        Thread.sleep(delayMs);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                });
        lines.map((id, text) -> KeyValue.pair(id, id)).to(IDS);
        lines.flatMapValues(text -> List.of(text.split(" ")))
                .groupBy((id, word) -> word)
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"))
                .toStream()
                .to(COUNTS, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        // a killed server or app must not stall the test for Streams' default minute
        p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        // a killed instance's member leaves the group after 6 s, not Streams' default 45 s
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6_000);
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1_000);
        KafkaStreams streams = new KafkaStreams(b.build(), p);
        streams.setStateListener(
                (now, before) -> System.out.println("streams state " + before + " -> " + now));
        streams.setUncaughtExceptionHandler(
                e -> {
                    e.printStackTrace(System.out);
                    return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
                            .StreamThreadExceptionResponse.REPLACE_THREAD;
                });
        streams.start();
        new CountDownLatch(1).await();
    }
}
