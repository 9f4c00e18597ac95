package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A process that runs one small-object merge round and exits 0 (or is halted by a halt hook, 137):
 * {@code <catalog url> <now millis> <empty dir> key=value...}. For {@link SmallObjectMergeIT}'s
 * kills.
 */
final class MergeChild {
    private MergeChild() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> settings = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Config config = Config.of(settings);
        Path empty = Files.createDirectories(Path.of(args[2]));
        try (Catalog catalog = Catalog.open(args[0]);
                ObjectStore store = S3ObjectStore.create(config);
                Compactor c =
                        Compactor.create(
                                new SegmentFiles(empty, 1),
                                Optional.of(empty),
                                catalog,
                                store,
                                config,
                                new MockTime(Long.parseLong(args[1])))) {
            Compactor.MergeResult r = c.runMergeOnce();
            System.out.println("merge child: " + r);
            System.exit(r.failedPartitions() == 0 ? 0 : 2);
        }
    }
}
