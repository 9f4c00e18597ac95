package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registrar on Iceberg's JdbcCatalog over PostgreSQL ({@code TIERLOG_IT_PG_URL}, else the local
 * default), in a fresh schema; skipped with a reason when no server answers.
 */
class PostgresTablesIT {
    static final String DEFAULT_URL =
            "jdbc:postgresql://127.0.0.1:5432/tierlog?user=tierlog&password=tierlog";

    @TempDir Path dir;
    private String schema;

    static String baseUrl() {
        String env = System.getenv("TIERLOG_IT_PG_URL");
        return env == null || env.isBlank() ? DEFAULT_URL : env;
    }

    private String url() {
        return baseUrl() + (baseUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    @BeforeEach
    void createSchema() {
        schema = "tli_" + UUID.randomUUID().toString().replace("-", "").toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(baseUrl());
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            schema = null;
            Assumptions.abort("PostgreSQL not reachable (" + e.getMessage() + ")");
        }
    }

    @AfterEach
    void dropSchema() throws SQLException {
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(baseUrl());
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Test
    void twoRegistrarsOnOnePostgresCatalogRegisterEachObjectOnce() throws Exception {
        try (TablesFixture fx = new TablesFixture(dir, "jdbc")) {
            fx.topicSettings.put("iceberg.catalog.uri", url());
            fx.catalog.createTopic("events", 2, Map.of());
            for (int i = 0; i < 4; i++) {
                fx.append("events", i % 2, 3);
            }
            try (IcebergTopicTables a = fx.open();
                    IcebergTopicTables b = fx.open()) {
                a.sync("events");
                ColdObject o = fx.append("events", 1, 3);
                AtomicBoolean once = new AtomicBoolean();
                b.setHooks(
                        new CommitHooks() {
                            @Override
                            void beforeCommit(String topic) {
                                if (once.compareAndSet(false, true)) {
                                    a.sync(topic);
                                }
                            }
                        });
                b.sync("events");
                assertThat(once).isTrue();
                TableAudit audit = b.audit("events");
                assertThat(audit.clean()).as(audit.toString()).isTrue();
                assertThat(a.state("events").orElseThrow().files()).isEqualTo(5);
                assertThat(b.pinned(o.key())).isTrue();
            }
            assertThat(fx.dataDir().resolve("iceberg.db")).doesNotExist();
        }
    }
}
