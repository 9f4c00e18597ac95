package io.tierlog.itests.iceberg;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An acks=all idempotent producer on one thread, sending to its partitions in turn at a bounded
 * rate through server kills and restarts, and recording each acknowledgement (offset from the
 * {@code RecordMetadata}, and the wall-clock time of the send) by (partition, sequence). A failed
 * send is dropped, never resent by hand, so only acknowledged records are owed. Values encode
 * {@code <topic>|<partition>|<sequence>|padding}, so a record read back names its send.
 *
 * <p>Thread-safe: acknowledgements arrive on the client's I/O thread while the test reads.
 */
final class TrickleProducer {
    /** An acknowledged send. */
    record Ack(long offset, long sentAtMs, long ackedAtMs) {}

    private final String bootstrap;
    private final List<TopicPartition> partitions;
    private final double recordsPerSecond;
    private final int paddingBytes;
    private final Map<TopicPartition, NavigableMap<Long, Ack>> acked = new ConcurrentHashMap<>();
    private final Map<TopicPartition, NavigableMap<Long, Long>> seqByOffset =
            new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> doubleAssigned = new ConcurrentHashMap<>();
    private final AtomicLong ackCount = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Throwable> crashed = new AtomicReference<>();
    private volatile boolean running;
    private Thread thread;

    TrickleProducer(
            String bootstrap,
            List<TopicPartition> partitions,
            double recordsPerSecond,
            int paddingBytes) {
        this.bootstrap = bootstrap;
        this.partitions = List.copyOf(partitions);
        this.recordsPerSecond = recordsPerSecond;
        this.paddingBytes = paddingBytes;
        for (TopicPartition tp : partitions) {
            acked.put(tp, new ConcurrentSkipListMap<>());
            seqByOffset.put(tp, new ConcurrentSkipListMap<>());
        }
    }

    static byte[] value(TopicPartition tp, long seq, int paddingBytes) {
        StringBuilder b = new StringBuilder(tp.topic() + "|" + tp.partition() + "|" + seq + "|");
        int base = b.length();
        while (b.length() < base + paddingBytes) {
            b.append((char) ('a' + (b.length() + seq) % 26));
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The sequence a value of this producer for {@code tp} encodes, if it is one. */
    Optional<Long> decode(TopicPartition tp, byte[] value) {
        if (value == null) {
            return Optional.empty();
        }
        String[] parts = new String(value, StandardCharsets.US_ASCII).split("\\|");
        try {
            long seq = Long.parseLong(parts[2]);
            return java.util.Arrays.equals(value, value(tp, seq, paddingBytes))
                    ? Optional.of(seq)
                    : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private KafkaProducer<byte[], byte[]> newClient() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 12_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void start() {
        running = true;
        thread = new Thread(this::run, "trickle-producer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long[] nextSeq = new long[partitions.size()];
        KafkaProducer<byte[], byte[]> client = newClient();
        long started = System.nanoTime();
        long sent = 0;
        try {
            while (running) {
                long due = started + (long) (sent * 1e9 / recordsPerSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(wait, 50_000_000L)); // the rate, not a sync
                    continue;
                }
                int i = (int) (sent % partitions.size());
                TopicPartition tp = partitions.get(i);
                long seq = nextSeq[i]++;
                sent++;
                long now = System.currentTimeMillis();
                try {
                    client.send(
                            new ProducerRecord<>(
                                    tp.topic(),
                                    tp.partition(),
                                    now,
                                    null,
                                    value(tp, seq, paddingBytes)),
                            (md, e) -> {
                                if (e == null) {
                                    onAck(tp, seq, md.offset(), now);
                                } else {
                                    failed.incrementAndGet();
                                }
                            });
                } catch (RuntimeException e) {
                    // the client is unusable (closed under a kill): a new one, sequences go on
                    failed.incrementAndGet();
                    client.close(Duration.ZERO);
                    client = newClient();
                }
            }
            client.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            crashed.set(e);
        } finally {
            client.close(Duration.ofSeconds(5));
        }
    }

    private void onAck(TopicPartition tp, long seq, long offset, long sentAtMs) {
        acked.get(tp).put(seq, new Ack(offset, sentAtMs, System.currentTimeMillis()));
        Long before = seqByOffset.get(tp).putIfAbsent(offset, seq);
        if (before != null && before != seq) {
            doubleAssigned.merge(tp, 1L, Long::sum);
        }
        ackCount.incrementAndGet();
    }

    /** Stops sending and waits for what is in flight (acknowledged or failed). */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join(30_000);
        }
        if (crashed.get() != null) {
            throw new AssertionError("the producer thread crashed", crashed.get());
        }
    }

    long acked() {
        return ackCount.get();
    }

    long failed() {
        return failed.get();
    }

    /** Sequence -> acknowledgement of one partition (a live view). */
    NavigableMap<Long, Ack> acks(TopicPartition tp) {
        return acked.get(tp);
    }

    /** Offsets acknowledged for two different sends, per partition. */
    Map<TopicPartition, Long> doubleAssigned() {
        return Map.copyOf(doubleAssigned);
    }

    List<TopicPartition> partitions() {
        return partitions;
    }
}
