package io.tierlog.hot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A fresh temporary directory per property try ({@code @TempDir} is one per test method, and a
 * property runs many tries in one method). Stateless.
 */
final class TempDirs {
    private TempDirs() {}

    static Path create() {
        try {
            return Files.createTempDirectory("tierlog-hot-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir) {
        try {
            LogManager.deleteRecursively(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
