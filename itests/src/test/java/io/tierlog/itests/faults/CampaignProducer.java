package io.tierlog.itests.faults;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The campaign's acks=all, idempotent producer: one thread sends to every partition in turn at a
 * bounded rate through server kills, restarts and outages, and records each acknowledgement (with
 * the offset from its {@code RecordMetadata}) in the {@link CampaignLedger}. A failed send is
 * counted and dropped, never resent by hand, so only acknowledged records are owed. When the client
 * becomes unusable (a send throws instead of failing its future), it is closed and a new one
 * created; sequences go on.
 *
 * <p>Thread-safe: {@link #start()} and {@link #stop(Duration)} from the schedule's thread.
 */
final class CampaignProducer {
    private final String bootstrap;
    private final String topic;
    private final int partitions;
    private final int recordsPerSecond;
    private final CampaignLedger ledger;
    private final AtomicLong recreated = new AtomicLong();
    private final AtomicReference<Throwable> crashed = new AtomicReference<>();
    private final long[] nextSeq;
    private volatile boolean running;
    private Thread thread;

    CampaignProducer(
            String bootstrap,
            String topic,
            int partitions,
            int recordsPerSecond,
            CampaignLedger ledger) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
        this.recordsPerSecond = recordsPerSecond;
        this.ledger = ledger;
        this.nextSeq = new long[partitions];
    }

    private KafkaProducer<byte[], byte[]> newClient() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 8 << 10);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 4_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 4L << 20);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void start() {
        running = true;
        thread = new Thread(this::run, "campaign-producer-" + Long.toHexString(ledger.seed()));
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        KafkaProducer<byte[], byte[]> client = newClient();
        long started = System.nanoTime();
        long sent = 0;
        int partition = 0;
        try {
            while (running) {
                // Bounded rate: the campaign shares 2 cores; about recordsPerSecond records.
                long due = started + sent * 1_000_000_000L / recordsPerSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(wait, 50_000_000L));
                    continue;
                }
                int p = partition;
                partition = (partition + 1) % partitions;
                long seq = nextSeq[p]++;
                sent++;
                try {
                    client.send(
                            new ProducerRecord<>(
                                    topic,
                                    p,
                                    System.currentTimeMillis(),
                                    null,
                                    ledger.value(p, seq)),
                            (md, e) -> {
                                if (e == null) {
                                    ledger.onAck(p, md.offset(), seq);
                                } else {
                                    ledger.onFailure();
                                }
                            });
                } catch (RuntimeException e) {
                    // Not delivered (buffer full past max.block.ms, or the client is in a fatal
                    // state): count it and start over with a fresh client.
                    ledger.onFailure();
                    client.close(Duration.ofSeconds(5));
                    client = newClient();
                    recreated.incrementAndGet();
                }
            }
            // Let queued records finish (ack or fail within delivery.timeout.ms).
            client.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            crashed.set(t);
        } finally {
            client.close(Duration.ofSeconds(20));
        }
    }

    /** Stops sending and waits until every queued send has been acknowledged or failed. */
    void stop(Duration timeout) throws InterruptedException {
        running = false;
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(10_000);
        }
        if (crashed.get() != null) {
            throw new AssertionError("the campaign producer thread crashed", crashed.get());
        }
    }

    long recreatedClients() {
        return recreated.get();
    }

    long sentFor(int partition) {
        return nextSeq[partition];
    }
}
