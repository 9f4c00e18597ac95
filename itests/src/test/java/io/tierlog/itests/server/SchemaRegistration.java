package io.tierlog.itests.server;

import io.tierlog.registry.SchemaType;
import io.tierlog.server.TierlogServer;
import java.util.List;

/** Registers Avro schemas in a server's registry (the one its catalog holds). Stateless. */
final class SchemaRegistration {
    private SchemaRegistration() {}

    /** Registers {@code avro} under {@code subject}; returns its global id. */
    static int register(TierlogServer server, String subject, String avro) {
        return server.engine()
                .schemaRegistry()
                .register(subject, SchemaType.AVRO, avro, List.of(), false)
                .schema()
                .id();
    }
}
