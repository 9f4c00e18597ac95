package io.tierlog.hot;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for a disk-full test (root only; the test is skipped with the reason
 * otherwise), with a filler file that takes every free byte and gives back pages on demand.
 * Unmounted on close. Not thread-safe.
 */
final class Tmpfs implements AutoCloseable {
    final Path mountPoint;
    private final Path filler;
    private long fillerSize;

    private Tmpfs(Path mountPoint) {
        this.mountPoint = mountPoint;
        this.filler = mountPoint.resolve("filler.bin");
    }

    /** Mounts a tmpfs of {@code size} (for example "2m") on {@code dir}, or skips the test. */
    static Tmpfs mount(Path dir, String size) throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "needs root to mount a tmpfs (running as " + System.getProperty("user.name") + ")");
        Files.createDirectories(dir);
        Process p =
                new ProcessBuilder(
                                "mount",
                                "-t",
                                "tmpfs",
                                "-o",
                                "size=" + size,
                                "tmpfs",
                                dir.toString())
                        .redirectErrorStream(true)
                        .start();
        boolean done = p.waitFor(30, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes());
        assumeTrue(done && p.exitValue() == 0, "cannot mount a tmpfs on " + dir + ": " + out);
        return new Tmpfs(dir);
    }

    /** Writes the filler until the file system is full. */
    void fill() throws IOException {
        ByteBuffer page = ByteBuffer.allocate(4096);
        try (FileChannel ch =
                FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long pos = ch.size();
            try {
                while (true) {
                    page.clear();
                    int n = ch.write(page, pos);
                    if (n <= 0) {
                        break;
                    }
                    pos += n;
                }
            } catch (IOException full) {
                // ENOSPC: full
            }
            fillerSize = pos;
        }
    }

    /** Frees {@code bytes} of the filler (rounded to pages by the file system). */
    void free(long bytes) throws IOException {
        fillerSize = Math.max(0, fillerSize - bytes);
        try (FileChannel ch = FileChannel.open(filler, StandardOpenOption.WRITE)) {
            ch.truncate(fillerSize);
        }
    }

    /** Deletes the filler: the file system has room again. */
    void freeAll() throws IOException {
        Files.deleteIfExists(filler);
        fillerSize = 0;
    }

    @Override
    public void close() throws Exception {
        Process p = new ProcessBuilder("umount", "-l", mountPoint.toString()).inheritIO().start();
        p.waitFor(30, TimeUnit.SECONDS);
    }
}
