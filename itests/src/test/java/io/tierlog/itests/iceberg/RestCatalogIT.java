package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.iceberg.testing.RestCatalogServer;
import io.tierlog.itests.iceberg.TableReader.LiveFile;
import io.tierlog.itests.iceberg.TableReader.TableView;
import io.tierlog.itests.testing.TieredServers;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's REST catalog: a {@code tierlog serve} child with {@code iceberg.catalog.type=rest}
 * registers a topic's cold objects in an Iceberg REST catalog server run by the test (Iceberg's own
 * servlet and adapter over a JdbcCatalog, {@link RestCatalogServer}); an outside reader (Iceberg's
 * {@link RESTCatalog} client, reading the bucket's files itself) loads the table and finds every
 * cold object once, with the table's field ids and offsets 0 to the end, no gap, no overlap.
 */
class RestCatalogIT {
    private static final String TOPIC = "rest-topic";

    @TempDir Path dir;

    @Test
    void aServerOnARestCatalogRegistersItsObjectsAndAnOutsideRestClientReadsThem()
            throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.iceberg", "warn");
        try (ColdTierFixture s3 = ColdTierFixture.start(dir);
                RestCatalogServer rest =
                        RestCatalogServer.start(
                                s3.store(),
                                s3.bucket(),
                                dir.resolve("rest"),
                                "s3://" + s3.bucket() + "/iceberg")) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Map<String, String> settings =
                    new HashMap<>(
                            s3.engineSettings(
                                    s3.endpoint(),
                                    Map.of(
                                            "schema.registry.listen", "",
                                            "segment.bytes", "8192",
                                            "retention.ms", "-1",
                                            "offload.interval.ms", "200",
                                            "iceberg.freshness.target.ms", "2000",
                                            "iceberg.catalog.type", "rest",
                                            "iceberg.catalog.uri", rest.uri().toString())));
            ServerChild server = new ServerChild(port, settings, dir.resolve("serve.log"));
            try {
                server.startListening();
                try (Admin a = Admin.create(Map.of("bootstrap.servers", server.bootstrap()))) {
                    a.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
                }
                int records = 2000;
                TieredServers.produce(
                        server.bootstrap(),
                        TOPIC,
                        0,
                        records,
                        i -> ("rest-" + i + "-" + "r".repeat(80)).getBytes(StandardCharsets.UTF_8));
                TableReader reader =
                        new TableReader(
                                s3.dataDir().resolve("iceberg.db"),
                                s3.dataDir().resolve("s3"),
                                s3.bucket(),
                                "tierlog");
                try (RESTCatalog client = new RESTCatalog()) {
                    client.initialize(
                            "tierlog",
                            Map.of(
                                    "uri",
                                    rest.uri().toString(),
                                    "io-impl",
                                    LocalBucketFileIO.class.getName(),
                                    LocalBucketFileIO.ROOT_PROPERTY,
                                    s3.dataDir().resolve("s3").toString()));
                    TableIdentifier id = TableIdentifier.of("tierlog", TOPIC);
                    TableCheck check =
                            Await.atMost(
                                    Duration.ofSeconds(90),
                                    () -> {
                                        if (!client.tableExists(id)) {
                                            return null;
                                        }
                                        Table t = client.loadTable(id);
                                        TableView v = reader.view(id.toString(), "", t);
                                        TableCheck c =
                                                TableCheck.of(
                                                        TOPIC,
                                                        Optional.of(v),
                                                        catalogObjects(s3),
                                                        reader);
                                        return c.liveRecords() == records ? c : null;
                                    },
                                    c -> c != null && c.exact());
                    assertThat(check)
                            .as(
                                    "the REST catalog's table holds all %d records (log %s)",
                                    records, server.log())
                            .isNotNull();
                    System.out.println("rest table: " + check.describe());
                    Table t = client.loadTable(id);
                    assertThat(t.schema().findField("offset")).isNotNull();
                    assertThat(t.properties()).containsEntry("tierlog.owner", "tierlog");
                    List<LiveFile> files =
                            new ArrayList<>(reader.view(id.toString(), "", t).files());
                    files.sort(Comparator.comparingLong(LiveFile::minOffset));
                    long next = 0;
                    for (LiveFile f : files) {
                        assertThat(f.minOffset()).as("no gap, no overlap").isEqualTo(next);
                        next = f.maxOffset() + 1;
                    }
                    assertThat(next).isEqualTo(records);
                }
                assertThat(reader.tables("tierlog"))
                        .as("nothing registered in a local JDBC catalog instead")
                        .doesNotContain(TOPIC);
            } finally {
                server.kill();
            }
        }
    }

    private static Map<String, io.tierlog.catalog.ColdObject> catalogObjects(ColdTierFixture s3) {
        try (Catalog c = Catalog.open(s3.catalogUrl(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
            return TableCheck.catalogObjects(c, TOPIC);
        }
    }
}
