package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cloud.stream.schema.registry.SchemaReference;
import org.springframework.cloud.stream.schema.registry.SchemaRegistrationResponse;
import org.springframework.cloud.stream.schema.registry.client.ConfluentSchemaRegistryClient;

/**
 * A Java client of the Confluent registry API from Maven Central that this project did not write:
 * Spring Cloud Stream's {@code ConfluentSchemaRegistryClient} (Confluent's own Java client and
 * serializers are not on Maven Central; Apicurio's serdes speak only Apicurio's API) registers,
 * evolves and fetches Avro schemas by id and by subject version in tierlog's registry.
 */
class SpringConfluentRegistryClientIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String V1 =
            "{\"type\":\"record\",\"name\":\"Payment\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}";
    private static final String V2 =
            "{\"type\":\"record\",\"name\":\"Payment\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
                    + "{\"name\":\"amount\",\"type\":\"double\",\"default\":0.0}]}";
    private static final String INCOMPATIBLE =
            "{\"type\":\"record\",\"name\":\"Payment\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    @TempDir Path dir;
    private ServerHarness server;
    private ConfluentSchemaRegistryClient client;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir.resolve("data"), Map.of()); // registry on a free port
        client = new ConfluentSchemaRegistryClient();
        client.setEndpoint(server.server().schemaRegistryUri().orElseThrow().toString());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void registersEvolvesAndFetchesByIdAndBySubjectVersion() throws Exception {
        SchemaRegistrationResponse first = client.register("payments-value", "avro", V1);
        SchemaRegistrationResponse second = client.register("payments-value", "avro", V2);
        assertThat(first.getSchemaReference().getVersion()).isEqualTo(1);
        assertThat(second.getSchemaReference().getVersion()).isEqualTo(2);
        assertThat(second.getId()).isNotEqualTo(first.getId());

        assertThat(JSON.readTree(client.fetch(first.getId()))).isEqualTo(JSON.readTree(V1));
        assertThat(JSON.readTree(client.fetch(new SchemaReference("payments-value", 2, "avro"))))
                .isEqualTo(JSON.readTree(V2));
        // the same schema again: the existing id, no new version (Spring's client reports the
        // subject's latest version after registering, whatever version the schema has)
        SchemaRegistrationResponse again = client.register("payments-value", "avro", V1);
        assertThat(again.getId()).isEqualTo(first.getId());
        assertThat(again.getSchemaReference().getVersion()).isEqualTo(2);
    }

    @Test
    void anIncompatibleSchemaAndAnUnknownIdFailInTheClient() {
        client.register("payments-value", "avro", V1);
        assertThatThrownBy(() -> client.register("payments-value", "avro", INCOMPATIBLE))
                .hasMessageContaining("409");
        assertThatThrownBy(() -> client.fetch(987654)).hasMessageContaining("987654");
    }
}
