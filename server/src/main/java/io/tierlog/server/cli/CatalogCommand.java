package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.engine.CatalogRebuild;
import io.tierlog.engine.EngineOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tierlog catalog rebuild}: rebuilds a lost or rolled-back catalog from the objects in the
 * bucket ({@link CatalogRebuild} does the work). Run with the server stopped and the settings of
 * {@code serve}. Topic partition counts and configs still on disk in the server's topic files
 * ({@code <data.dir>/meta/topics/<topic>.properties}: {@code partitions}, {@code config.<key>}) are
 * passed along as hints. Not thread-safe (one run per instance).
 */
@Command(
        name = "catalog",
        mixinStandardHelpOptions = true,
        description = "Catalog maintenance.",
        subcommands = {CatalogCommand.Rebuild.class})
final class CatalogCommand implements Runnable {
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code tierlog catalog rebuild [--force] [--dry-run]}. */
    @Command(
            name = "rebuild",
            mixinStandardHelpOptions = true,
            description = {
                "Rebuilds a lost or rolled-back catalog from the cold objects in the bucket (their"
                        + " Parquet footers name topic, partition and offsets), with the data dir's"
                        + " catalog id. Refuses gaps and partial overlaps; reports duplicates and any"
                        + " gap between the cold and the hot tier. Stop the server first."
            })
    static final class Rebuild implements Callable<Integer> {
        @Mixin SettingsOptions settings = new SettingsOptions();

        @Option(
                names = "--force",
                description =
                        "Replace a catalog that looks healthy (e.g. one restored from an old backup).")
        boolean force;

        @Option(names = "--dry-run", description = "Report what would be written; write nothing.")
        boolean dryRun;

        @Override
        public Integer call() throws Exception {
            Config c = settings.load();
            Path dataDir = Path.of(c.get(EngineOptions.DATA_DIR)).toAbsolutePath().normalize();
            List<String> lines;
            try {
                lines = CatalogRebuild.run(c, topicHints(dataDir), force, dryRun);
            } catch (CatalogRebuild.RefusedException | java.nio.file.NoSuchFileException e) {
                throw new CliException(CliErrors.USAGE, "refused: " + e.getMessage(), e);
            }
            lines.forEach(System.out::println);
            return CliErrors.OK;
        }
    }

    /** The server's topic files, as hints; unreadable ones are skipped with a warning. */
    static Map<String, CatalogRebuild.TopicHint> topicHints(Path dataDir) throws IOException {
        Path dir = dataDir.resolve("meta").resolve("topics");
        Map<String, CatalogRebuild.TopicHint> hints = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return hints;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.properties")) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(f)) {
                    p.load(in);
                    // long names are stored under a hashed file name, with the name inside
                    String topic =
                            p.getProperty(
                                    "topic.name",
                                    fn.substring(0, fn.length() - ".properties".length()));
                    int partitions = Integer.parseInt(p.getProperty("partitions", "0").trim());
                    Map<String, String> configs = new TreeMap<>();
                    for (String k : p.stringPropertyNames()) {
                        if (k.startsWith("config.")) {
                            configs.put(k.substring("config.".length()), p.getProperty(k));
                        }
                    }
                    hints.put(topic, new CatalogRebuild.TopicHint(partitions, configs));
                } catch (IOException | RuntimeException e) {
                    System.err.println("warning: skipping unreadable topic file " + f + ": " + e);
                }
            }
        }
        return hints;
    }
}
