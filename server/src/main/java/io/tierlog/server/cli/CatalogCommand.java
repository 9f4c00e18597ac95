package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.engine.CatalogRebuild;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tierlog catalog rebuild}: rebuilds a lost or rolled-back catalog from the objects in the
 * bucket ({@link CatalogRebuild} does the work). Run with the server stopped and the settings of
 * {@code serve}. Topic ids, partition counts and configs come back from the data dir's topic hints
 * ({@code <data.dir>/meta/topic-hints/}, see the engine's {@code TopicHints}). Not thread-safe (one
 * run per instance).
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
            List<String> lines;
            try {
                lines = CatalogRebuild.run(c, force, dryRun);
            } catch (CatalogRebuild.RefusedException | java.nio.file.NoSuchFileException e) {
                throw new CliException(CliErrors.USAGE, "refused: " + e.getMessage(), e);
            }
            lines.forEach(System.out::println);
            return CliErrors.OK;
        }
    }
}
