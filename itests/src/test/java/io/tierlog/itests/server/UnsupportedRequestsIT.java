package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.faults.LogCapture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over the wire with a raw client: ApiVersions advertises the new admin APIs with Kafka 4.4's
 * version ranges and nothing kafka-clients 4.4 does not know; a request for an API or version not
 * served closes the connection, as a Kafka broker does, and is logged at INFO once per client id,
 * API and version.
 */
class UnsupportedRequestsIT {
    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws IOException {
        server = new ServerHarness(dir, Map.of());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void apiVersionsAdvertisesTheAdminApisWithinWhatKafkaClientsKnows() throws IOException {
        ApiVersionsResponseData r;
        try (RawClient c = new RawClient(server.port())) {
            r =
                    c.call(
                            ApiKeys.API_VERSIONS,
                            (short) 3,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("raw")
                                    .setClientSoftwareVersion("1"),
                            new ApiVersionsResponseData());
        }
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        for (ApiVersion v : r.apiKeys()) {
            ApiKeys k = ApiKeys.forId(v.apiKey());
            assertThat(v.minVersion()).as("%s min", k).isGreaterThanOrEqualTo(k.oldestVersion());
            assertThat(v.maxVersion()).as("%s max", k).isLessThanOrEqualTo(k.latestVersion());
        }
        assertRange(r, ApiKeys.LIST_OFFSETS, 1, 11);
        assertRange(r, ApiKeys.CREATE_PARTITIONS, 0, 3);
        assertRange(r, ApiKeys.DESCRIBE_CLUSTER, 0, 2);
        assertRange(r, ApiKeys.DESCRIBE_PRODUCERS, 0, 0);
        assertRange(r, ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4);
        assertRange(r, ApiKeys.DESCRIBE_ACLS, 1, 3);
        assertRange(r, ApiKeys.CREATE_ACLS, 1, 3);
        assertRange(r, ApiKeys.DELETE_ACLS, 1, 3);
        assertRange(r, ApiKeys.WRITE_TXN_MARKERS, 1, 2);
        assertRange(r, ApiKeys.END_TXN, 0, 5);
        assertRange(r, ApiKeys.PRODUCE, 3, 12);
        assertThat(r.apiKeys().find(ApiKeys.ELECT_LEADERS.id))
                .as("one node leads every partition: leader elections are not served")
                .isNull();
    }

    private static void assertRange(ApiVersionsResponseData r, ApiKeys key, int min, int max) {
        ApiVersion v = r.apiKeys().find(key.id);
        assertThat(v).as("%s advertised", key).isNotNull();
        assertThat(v.minVersion()).as("%s min", key).isEqualTo((short) min);
        assertThat(v.maxVersion()).as("%s max", key).isEqualTo((short) max);
    }

    @Test
    void anUnservedApiOrVersionClosesTheConnectionAndIsLoggedOncePerClientApiAndVersion()
            throws IOException {
        try (LogCapture log = LogCapture.start()) {
            for (int attempt = 0; attempt < 3; attempt++) {
                assertClosed(
                        RawClient.frame(
                                ApiKeys.ELECT_LEADERS,
                                (short) 0,
                                1,
                                new ElectLeadersRequestData(),
                                "elect-app"));
                assertClosed(
                        RawClient.frame(
                                ApiKeys.METADATA,
                                (short) 13,
                                1,
                                new MetadataRequestData(),
                                "new-app"));
            }
            assertClosed(
                    RawClient.frame(
                            ApiKeys.METADATA, (short) 13, 1, new MetadataRequestData(), "other"));
            // the connection handler logs before closing, so the lines are there by now
            assertThat(log.lines("INFO", "'elect-app'", "ElectLeaders version 0", "not serve"))
                    .hasSize(1);
            assertThat(log.lines("INFO", "'new-app'", "Metadata version 13", "serves 0-12"))
                    .hasSize(1);
            assertThat(log.lines("INFO", "'other'", "Metadata version 13")).hasSize(1);
        }
        // the server still serves everyone else
        try (RawClient c = new RawClient(server.port())) {
            ApiVersionsResponseData r =
                    c.call(
                            ApiKeys.API_VERSIONS,
                            (short) 0,
                            new ApiVersionsRequestData(),
                            new ApiVersionsResponseData());
            assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    private void assertClosed(byte[] frame) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.sendRaw(frame);
            assertThat(c.closedByServer()).as("closed by the server").isTrue();
        }
    }
}
