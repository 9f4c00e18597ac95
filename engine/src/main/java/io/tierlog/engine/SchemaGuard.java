package io.tierlog.engine;

import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.SubjectVersion;
import io.tierlog.registry.WireFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The produce-time schema contract of the write door (Confluent Server's schema ID validation): for
 * a topic with {@code confluent.value.schema.validation} ({@code ...key...}) on, every non-null
 * value (key) of an appended batch must start with Confluent's wire-format header ({@link
 * WireFormat}; for a PROTOBUF schema with readable message indexes), and its schema id must be
 * registered under subject {@code <topic>-value} ({@code <topic>-key}), soft-deleted versions
 * included. Null values and keys pass (tombstones), as in Confluent Server. The payload is not
 * decoded. A batch with any refused record is refused whole with a {@link
 * RecordValidationException} listing every refused record by its index in the batch, before the hot
 * tier sees it, so nothing of the append is written. Batches are checked in order and the first
 * batch with refused records is the one reported (Kafka's {@code LogValidator} does the same).
 *
 * <p><b>Blocking.</b> With {@code mayBlock} false only the registry's in-memory answers are used
 * ({@link SchemaRegistry#cachedRegisteredUnder}, {@link SchemaRegistry#cachedSchema}); when one is
 * not known the check answers {@code false} and the caller repeats the append where blocking is
 * allowed, which asks the registry (and so the catalog). A refusal is never decided from memory
 * (another server of the catalog may just have registered the id): it is confirmed from the
 * catalog's list of the subject's versions on the blocking path. So a record naming an unknown id
 * always takes the blocking path and costs a catalog query per refused batch: refusals are the slow
 * path, accepted records the fast one.
 *
 * <p>A registry that cannot answer (catalog down) refuses the append with {@code
 * KafkaStorageException}, which producers retry. Records refused are counted in {@link
 * MetricNames#SCHEMA_VALIDATION_REFUSED}, tagged {@code part} and {@code reason}. Thread-safe
 * (state is per call; the registry and meters are thread-safe).
 */
final class SchemaGuard {
    private static final ThreadLocal<BufferSupplier> SUPPLIERS =
            ThreadLocal.withInitial(BufferSupplier::create);

    /** What a schema id means under a subject. */
    private enum Verdict {
        ACCEPT,
        ACCEPT_PROTOBUF,
        NO_HEADER,
        UNKNOWN_ID,
        NOT_IN_SUBJECT,
        /** Not known from memory: ask again where blocking is allowed. */
        ASK
    }

    private final TopicConfigs configs;
    private final Supplier<SchemaRegistry> registry;
    private final MeterRegistry meters;

    /**
     * @param registry asked only when a record of a validated topic needs a lookup (so an engine
     *     without a registry works until such a record arrives)
     */
    SchemaGuard(TopicConfigs configs, Supplier<SchemaRegistry> registry, MeterRegistry meters) {
        this.configs = configs;
        this.registry = registry;
        this.meters = meters;
    }

    /**
     * Checks {@code batches} (from position to limit; the buffer is not moved) against {@code tp}'s
     * topic rules.
     *
     * @return true when every record passed (or the topic validates nothing); false when {@code
     *     mayBlock} is false and a lookup must block (nothing decided)
     * @throws RecordValidationException records were refused (nothing may be written)
     * @throws CorruptRecordException the records cannot be read
     * @throws KafkaStorageException the registry cannot answer
     */
    boolean check(TopicPartition tp, ByteBuffer batches, boolean mayBlock) {
        SchemaRules rules = configs.schemaRules(tp.topic());
        if (!rules.any()) {
            return true;
        }
        Scan scan =
                new Scan(
                        () -> registry(tp),
                        rules,
                        SchemaRules.valueSubject(tp.topic()),
                        SchemaRules.keySubject(tp.topic()),
                        mayBlock);
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(batches.duplicate()).batches()) {
            if (batch.isControlBatch() || batch.magic() < 2) {
                continue; // the hot tier refuses both from clients, with their own errors
            }
            List<RecordValidationException.RecordError> errors = new ArrayList<>(0);
            try {
                if (!scan.batch(batch, errors)) {
                    return false;
                }
            } catch (RuntimeException e) {
                if (e instanceof KafkaStorageException || e instanceof CorruptRecordException) {
                    throw e;
                }
                throw new CorruptRecordException("Cannot read the records of a batch: " + e, e);
            }
            if (!errors.isEmpty()) {
                if (!batch.isValid()) {
                    // A damaged batch is the producer's (or network's) fault, not the schema's.
                    throw new CorruptRecordException("Record batch CRC-32C mismatch");
                }
                scan.count(meters);
                throw new RecordValidationException(errors);
            }
        }
        return true;
    }

    private SchemaRegistry registry(TopicPartition tp) {
        try {
            return registry.get();
        } catch (RuntimeException e) {
            throw new KafkaStorageException(
                    "Schema validation of topic "
                            + tp.topic()
                            + " needs the schema registry, which is unavailable: "
                            + e,
                    e);
        }
    }

    /** One check's state: the registry's last answer and the refusals to count. */
    private static final class Scan {
        private final Supplier<SchemaRegistry> registry;
        private SchemaRegistry reg; // asked for when a record first needs a lookup
        private final SchemaRules rules;
        private final String valueSubject;
        private final String keySubject;
        private final boolean mayBlock;
        // Records of a batch nearly always share one id per part: remember the last answer.
        private int lastValueId = -1;
        private Verdict lastValue;
        private int lastKeyId = -1;
        private Verdict lastKey;
        private final List<String> refusedTags = new ArrayList<>(0);

        Scan(
                Supplier<SchemaRegistry> registry,
                SchemaRules rules,
                String valueSubject,
                String keySubject,
                boolean mayBlock) {
            this.registry = registry;
            this.rules = rules;
            this.valueSubject = valueSubject;
            this.keySubject = keySubject;
            this.mayBlock = mayBlock;
        }

        /** Adds the batch's refused records to {@code errors}; false: a lookup must block. */
        boolean batch(
                MutableRecordBatch batch, List<RecordValidationException.RecordError> errors) {
            int index = 0;
            try (CloseableIterator<Record> it = batch.streamingIterator(SUPPLIERS.get())) {
                while (it.hasNext()) {
                    Record r = it.next();
                    String why = null;
                    if (rules.values() && r.hasValue()) {
                        ByteBuffer v = r.value();
                        int id = WireFormat.schemaIdOrMinusOne(v);
                        if (id != lastValueId || lastValue == null) {
                            lastValue = verdict(valueSubject, id);
                            lastValueId = id;
                        }
                        if (lastValue == Verdict.ASK) {
                            return false;
                        }
                        why = reason("value", valueSubject, v, id, lastValue);
                    }
                    if (why == null && rules.keys() && r.hasKey()) {
                        ByteBuffer k = r.key();
                        int id = WireFormat.schemaIdOrMinusOne(k);
                        if (id != lastKeyId || lastKey == null) {
                            lastKey = verdict(keySubject, id);
                            lastKeyId = id;
                        }
                        if (lastKey == Verdict.ASK) {
                            return false;
                        }
                        why = reason("key", keySubject, k, id, lastKey);
                    }
                    if (why != null) {
                        errors.add(new RecordValidationException.RecordError(index, why));
                    }
                    index++;
                }
            }
            return true;
        }

        private Verdict verdict(String subject, int id) {
            if (id < 0) {
                return Verdict.NO_HEADER; // or id < 0, which a registry never assigns
            }
            try {
                if (reg == null) {
                    reg = registry.get();
                }
                Optional<Boolean> under = reg.cachedRegisteredUnder(subject, id);
                Optional<RegisteredSchema> schema = reg.cachedSchema(id);
                if (under.isPresent() && under.get() && schema.isPresent()) {
                    return accept(schema.get());
                }
                // A refusal is never decided from memory: another server of the catalog may have
                // registered the id a moment ago. It is confirmed where blocking is allowed.
                if (!mayBlock) {
                    return Verdict.ASK;
                }
                if (reg.registeredUnder(subject, id) || listedUnder(subject, id)) {
                    return reg.schema(id).map(SchemaGuard.Scan::accept).orElse(Verdict.ACCEPT);
                }
                return reg.schema(id).isPresent() ? Verdict.NOT_IN_SUBJECT : Verdict.UNKNOWN_ID;
            } catch (KafkaStorageException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new KafkaStorageException(
                        "The schema registry cannot tell whether schema id "
                                + id
                                + " is registered under subject "
                                + subject
                                + ": "
                                + e,
                        e);
            }
        }

        /** From the catalog itself (the registry's memory of the subject may be behind). */
        private boolean listedUnder(String subject, int id) {
            for (SubjectVersion v : reg.versions(subject, true)) {
                if (v.schemaId() == id) {
                    return true;
                }
            }
            return false;
        }

        private static Verdict accept(RegisteredSchema s) {
            return s.type() == SchemaType.PROTOBUF ? Verdict.ACCEPT_PROTOBUF : Verdict.ACCEPT;
        }

        /** Why the record is refused, null when it passes. */
        private String reason(String part, String subject, ByteBuffer b, int id, Verdict v) {
            switch (v) {
                case ACCEPT:
                    return null;
                case ACCEPT_PROTOBUF:
                    try {
                        WireFormat.parse(b, true);
                        return null;
                    } catch (WireFormat.MalformedHeaderException e) {
                        refusedTags.add(part + ":malformed_indexes");
                        return "The "
                                + part
                                + " names Protobuf schema id "
                                + id
                                + " but its message indexes are unreadable: "
                                + e.getMessage();
                    }
                case NO_HEADER:
                    refusedTags.add(part + ":no_header");
                    return "The "
                            + part
                            + " has no schema id: it does not start with the wire-format"
                            + " header (magic byte 0, then a 4-byte schema id) that subject "
                            + subject
                            + " requires";
                case UNKNOWN_ID:
                    refusedTags.add(part + ":unknown_id");
                    return "The "
                            + part
                            + " names schema id "
                            + id
                            + ", which the schema registry does not know";
                case NOT_IN_SUBJECT:
                    refusedTags.add(part + ":not_in_subject");
                    return "The "
                            + part
                            + " names schema id "
                            + id
                            + ", which is not registered under subject "
                            + subject;
                default:
                    throw new IllegalStateException("no reason for " + v);
            }
        }

        void count(MeterRegistry meters) {
            for (String t : refusedTags) {
                int colon = t.indexOf(':');
                meters.counter(
                                MetricNames.SCHEMA_VALIDATION_REFUSED,
                                "part",
                                t.substring(0, colon),
                                "reason",
                                t.substring(colon + 1))
                        .increment();
            }
        }
    }
}
