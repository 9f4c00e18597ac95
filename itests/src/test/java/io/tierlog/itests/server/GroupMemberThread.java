package io.tierlog.itests.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A group member on its own thread: subscribes, polls, records every record index it reads and
 * commits after each poll; its rebalance listener reports to the group's {@link Ownership}. An
 * unexpected exception is kept (see {@link #failure()}).
 */
final class GroupMemberThread implements AutoCloseable {
    /** Who owns which partition of one group, as the members' listeners report it. */
    static final class Ownership {
        private final Map<Integer, String> owner = new HashMap<>();
        private final List<String> violations = new ArrayList<>();

        synchronized void assigned(String member, Collection<TopicPartition> tps) {
            for (TopicPartition tp : tps) {
                String was = owner.putIfAbsent(tp.partition(), member);
                if (was != null && !was.equals(member)) {
                    violations.add(tp + " assigned to " + member + " while " + was + " owns it");
                }
            }
        }

        synchronized void released(String member, Collection<TopicPartition> tps) {
            for (TopicPartition tp : tps) {
                owner.remove(tp.partition(), member);
            }
        }

        synchronized Map<Integer, String> snapshot() {
            return Map.copyOf(owner);
        }

        synchronized List<String> violations() {
            return List.copyOf(violations);
        }

        synchronized long ownedBy(String member) {
            return owner.values().stream().filter(member::equals).count();
        }
    }

    final String name;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final BitSet seen;
    private volatile boolean stop;
    private volatile Throwable failure;

    GroupMemberThread(
            String name,
            String bootstrap,
            String group,
            String protocol,
            String topic,
            Ownership ownership,
            BitSet seen,
            Map<String, Object> extra) {
        this.name = name;
        this.seen = seen;
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        p.putAll(extra);
        consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        ConsumerRebalanceListener listener =
                new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> tps) {
                        commit();
                        ownership.released(name, tps);
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> tps) {
                        ownership.assigned(name, tps);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> tps) {
                        ownership.released(name, tps);
                    }
                };
        thread =
                new Thread(
                        () -> {
                            try {
                                consumer.subscribe(List.of(topic), listener);
                                while (!stop) {
                                    for (ConsumerRecord<byte[], byte[]> r :
                                            consumer.poll(Duration.ofMillis(100))) {
                                        synchronized (seen) {
                                            seen.set(Clients.index(r.key()));
                                        }
                                    }
                                    commit();
                                }
                            } catch (Throwable e) {
                                failure = e;
                            } finally {
                                // Closing revokes through the listener, then leaves.
                                consumer.close(CloseOptions.timeout(Duration.ofSeconds(30)));
                            }
                        },
                        "member-" + name);
        thread.start();
    }

    /** As with Kafka, a commit while the group rebalances may fail; the next poll moves on. */
    private void commit() {
        try {
            consumer.commitSync(Duration.ofSeconds(10));
        } catch (CommitFailedException
                | RebalanceInProgressException
                | StaleMemberEpochException
                | UnknownMemberIdException
                | RetriableException e) {
            // retried after the next poll
        }
    }

    Throwable failure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(60_000);
        if (thread.isAlive()) {
            throw new AssertionError(name + " did not stop");
        }
    }
}
