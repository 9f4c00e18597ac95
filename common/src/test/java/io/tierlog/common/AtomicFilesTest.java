package io.tierlog.common;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @TempDir Path dir;

    @Test
    void writeCreatesThenReplacesTheWholeFileAndLeavesNoTemporary() throws Exception {
        Path target = dir.resolve("state");
        AtomicFiles.write(target, "a much longer first content\n".getBytes(StandardCharsets.UTF_8));
        AtomicFiles.write(target, "short\n".getBytes(StandardCharsets.UTF_8));

        assertArrayEquals("short\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(target));
        assertFalse(Files.exists(dir.resolve("state" + AtomicFiles.TMP_SUFFIX)));
    }

    @Test
    void writeOverwritesATemporaryLeftByACrashedWrite() throws Exception {
        Path target = dir.resolve("state");
        Files.writeString(
                dir.resolve("state.tmp"), "torn leftover of a crash, longer than the new");
        AtomicFiles.write(target, new byte[] {1, 2, 3});

        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(target));
        assertFalse(Files.exists(dir.resolve("state.tmp")));
    }
}
