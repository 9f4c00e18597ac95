package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * The catalog contract on PostgreSQL, each test in a fresh schema. The server is {@code
 * TIERLOG_IT_PG_URL} (a JDBC URL with user and password), else {@value #DEFAULT_URL}; the tests are
 * skipped with a reason when neither answers.
 */
class PostgresCatalogIT extends CatalogContract {
    static final String DEFAULT_URL =
            "jdbc:postgresql://127.0.0.1:5432/tierlog?user=tierlog&password=tierlog";

    private String schema;

    static String baseUrl() {
        String env = System.getenv("TIERLOG_IT_PG_URL");
        return env == null || env.isBlank() ? DEFAULT_URL : env;
    }

    @Override
    String url() {
        String base = baseUrl();
        return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    @BeforeEach
    @Override
    void openFirst() {
        schema = "tl_" + UUID.randomUUID().toString().replace("-", "").toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(baseUrl() + connectTimeout());
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            schema = null;
            Assumptions.abort(
                    "PostgreSQL not reachable at "
                            + baseUrl().replaceAll("password=[^&]*", "password=***")
                            + " ("
                            + e.getMessage()
                            + "); set TIERLOG_IT_PG_URL to run these tests");
        }
        super.openFirst();
    }

    private static String connectTimeout() {
        return (baseUrl().contains("?") ? "&" : "?") + "connectTimeout=3";
    }

    @AfterEach
    void dropSchema() throws SQLException {
        if (schema == null) {
            return;
        }
        try (Connection c = DriverManager.getConnection(baseUrl());
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @org.junit.jupiter.api.Test
    void existingAndReadOnlyModesRefuseAnEmptySchemaAndReadOnlyNeverWrites() throws SQLException {
        String empty =
                "tl_" + UUID.randomUUID().toString().replace("-", "").toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(baseUrl());
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + empty);
        }
        try {
            String base = baseUrl();
            String u = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + empty;
            for (Catalog.OpenMode mode :
                    new Catalog.OpenMode[] {
                        Catalog.OpenMode.EXISTING, Catalog.OpenMode.READ_ONLY
                    }) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> Catalog.open(u, java.util.Map.of(), mode))
                        .isInstanceOf(CatalogUnavailableException.class)
                        .hasMessageContaining("empty");
            }
            try (Catalog ro = Catalog.open(url(), java.util.Map.of(), Catalog.OpenMode.READ_ONLY)) {
                org.assertj.core.api.Assertions.assertThat(ro.id()).isEqualTo(catalog.id());
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> ro.createTopic("x", 1, java.util.Map.of()))
                        .isInstanceOf(CatalogException.class);
            }
        } finally {
            try (Connection c = DriverManager.getConnection(baseUrl());
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + empty + " CASCADE");
            }
        }
    }

    @Override
    public List<String> fieldIdTrapStatements() {
        return List.of(
                "CREATE FUNCTION field_id_trap_fn() RETURNS trigger AS $$ BEGIN IF NEW.path ="
                        + " 'boom' THEN RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$"
                        + " LANGUAGE plpgsql",
                "CREATE TRIGGER field_id_trap BEFORE INSERT ON registry_field_ids"
                        + " FOR EACH ROW EXECUTE FUNCTION field_id_trap_fn()");
    }

    @Override
    List<String> commitTrapTrigger() {
        return List.of(
                "CREATE FUNCTION trap_fn() RETURNS trigger AS"
                        + " $$ BEGIN INSERT INTO trap VALUES (42); RETURN NEW; END $$"
                        + " LANGUAGE plpgsql",
                "CREATE TRIGGER trap_insert AFTER INSERT ON cold_objects"
                        + " FOR EACH ROW EXECUTE FUNCTION trap_fn()");
    }
}
