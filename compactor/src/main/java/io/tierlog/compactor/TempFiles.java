package io.tierlog.compactor;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local Parquet files waiting for upload: {@code <tmp dir>/tierlog-offload-<pid>-<uuid>.parquet}.
 * The process id in the name lets a restarted compactor delete what a killed one left behind
 * without touching the files of another live compactor sharing the directory. Stateless, so
 * thread-safe.
 */
final class TempFiles {
    private static final Logger LOG = LoggerFactory.getLogger(TempFiles.class);
    private static final Pattern NAME =
            Pattern.compile("tierlog-offload-(\\d+)-[0-9a-f-]+\\.parquet");

    private TempFiles() {}

    static Path newFile(Path tmpDir) throws IOException {
        Files.createDirectories(tmpDir);
        return tmpDir.resolve(
                "tierlog-offload-"
                        + ProcessHandle.current().pid()
                        + "-"
                        + UUID.randomUUID()
                        + ".parquet");
    }

    /** Deletes temp files of processes that no longer run; returns how many. */
    static int deleteStale(Path tmpDir) throws IOException {
        if (!Files.isDirectory(tmpDir)) {
            return 0;
        }
        int deleted = 0;
        try (DirectoryStream<Path> files =
                Files.newDirectoryStream(tmpDir, "tierlog-offload-*.parquet")) {
            for (Path f : files) {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                long pid = Long.parseLong(m.group(1));
                boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive && Files.deleteIfExists(f)) {
                    deleted++;
                }
            }
        }
        if (deleted > 0) {
            LOG.info(
                    "deleted {} temporary files left by stopped compactors in {}", deleted, tmpDir);
        }
        return deleted;
    }
}
