package io.tierlog.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the handler tests: each test gets its own {@link ServerTestKit} in {@link #kit}, on a
 * fresh temporary data dir, opened before the test (and before the subclass's own
 * {@code @BeforeEach}) and closed after it. A class whose tests all need other server settings
 * overrides {@link #settings}; a single test that needs its own calls {@link #reopen}. Not
 * thread-safe, like the kit.
 */
public abstract class HandlerTestBase {
    @TempDir private Path dataDir;

    /** The kit of the running test. */
    protected ServerTestKit kit;

    /** Server settings of every test's kit (none: the kit's defaults). */
    protected Map<String, String> settings() {
        return Map.of();
    }

    @BeforeEach
    protected final void openKit() throws IOException {
        kit = ServerTestKit.open(dataDir, settings());
    }

    /** Replaces this test's kit by one with {@code settings}, on a data dir of its own. */
    protected final void reopen(Map<String, String> settings) throws IOException {
        kit.close();
        kit = ServerTestKit.open(Files.createTempDirectory(dataDir, "reopened"), settings);
    }

    @AfterEach
    protected final void closeKit() {
        kit.close();
    }
}
