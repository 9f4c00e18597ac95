package io.tierlog.itests.offload;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.testing.FaultyCatalog;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The child JVM of {@link ColdCompactionKillIT}: cold compaction passes over the catalog and store
 * given as {@code key=value} arguments until a pass finds nothing to do, printing {@code replacing}
 * before every replace-commit (so the parent can kill it around commits); exits 0 when done.
 */
public final class ColdCompactionChild {
    private ColdCompactionChild() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            settings.put(a.substring(0, eq), a.substring(eq + 1));
        }
        Config config = Config.of(settings);
        Path none = Path.of(settings.get("offload.tmp.dir")).resolveSibling("no-hot-log");
        try (Catalog real = Catalog.open(settings.get("catalog.url"));
                S3ObjectStore store = S3ObjectStore.create(config)) {
            FaultyCatalog catalog = new FaultyCatalog(real);
            long t0 = System.nanoTime();
            catalog.beforeReplace =
                    () ->
                            System.out.println(
                                    "replacing " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            SegmentFiles source = new SegmentFiles(none, 0);
            try (Compactor c =
                    Compactor.create(
                            source, Optional.empty(), catalog, store, config, Time.SYSTEM)) {
                for (int i = 0; i < 20; i++) {
                    Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
                    System.out.println("pass " + r);
                    if (r.partitionsCleaned() == 0 && r.failedPartitions() == 0) {
                        break;
                    }
                }
            }
        }
        System.out.println("done");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
