package io.tierlog.engine;

import io.tierlog.catalog.CatalogUnavailableException;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.common.ConfigOption;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.SegmentDump;
import io.tierlog.iceberg.IcebergOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What front ends (the {@code tierlog} command line, an embedder's admin tool) need from the
 * modules below the engine, in the engine's own terms, so that they depend on the engine and {@code
 * common} only: the option sets of every storage module, a segment file dump, and the recognition
 * of a missing catalog. Stateless; thread-safe.
 */
public final class Tools {
    private Tools() {}

    /**
     * What {@link #dumpSegment} found.
     *
     * @param fileBytes the file's size
     * @param validBytes bytes of the valid prefix (whole CRC-valid batches or index entries)
     * @param stopReason why the listing stopped before the end of the file (null when the whole
     *     file is valid; index files are always wholly valid)
     */
    public record DumpSummary(long fileBytes, long validBytes, String stopReason) {
        /** Whether a non-empty file holds not one valid batch (it is not a log segment at all). */
        public boolean nothingValid() {
            return fileBytes > 0 && validBytes == 0;
        }
    }

    /**
     * Prints the batches (and with {@code deep} every record) of a {@code .log} file, or the
     * entries of a {@code .index}/{@code .timeindex} file, like Kafka's {@code kafka-dump-log}. A
     * torn or corrupt tail ends the listing with its reason.
     *
     * @throws IllegalArgumentException when the file's name is not a segment file's
     */
    public static DumpSummary dumpSegment(Path file, PrintStream out, boolean deep)
            throws IOException {
        SegmentDump.Summary s = SegmentDump.dump(file, out, deep);
        return new DumpSummary(s.fileBytes(), s.validBytes(), s.stopReason());
    }

    /**
     * The options of every storage module, by documentation section, in documentation order: hot
     * tier (topic defaults, then the server-wide log dir options), tiering (engine), cold tier,
     * offload (compactor). A key may appear in more than one section ({@code data.dir}).
     */
    public static Map<String, List<ConfigOption<?>>> optionsByModule() {
        Map<String, List<ConfigOption<?>>> m = new LinkedHashMap<>();
        m.put(
                "hot tier (topic defaults; per topic via CreateTopics configs)",
                HotTierOptions.all());
        m.put("hot tier (log dir, server-wide)", HotTierOptions.logDirOptions());
        m.put("tiering (engine)", EngineOptions.ALL);
        m.put("cold tier (object store, Parquet)", ColdTierOptions.ALL);
        m.put("offload (compactor)", CompactorOptions.ALL);
        m.put(
                "iceberg tables (per topic: enabled, retention, drop, freshness)",
                IcebergOptions.all());
        return m;
    }

    /**
     * The message of {@code failure} when it says the catalog is not there, not the expected one,
     * or no longer durable (nothing may be committed or deleted on its word until it is restored or
     * rebuilt); empty for any other failure. Only {@code failure} itself is looked at, not its
     * causes: a caller walking a cause chain asks for each.
     */
    public static Optional<String> catalogUnavailable(Throwable failure) {
        return failure instanceof CatalogUnavailableException
                ? Optional.of(String.valueOf(failure.getMessage()))
                : Optional.empty();
    }
}
