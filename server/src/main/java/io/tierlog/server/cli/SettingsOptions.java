package io.tierlog.server.cli;

import io.tierlog.common.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The settings options every command that opens a data dir shares ({@code serve}, {@code inspect},
 * {@code verify}, {@code catalog rebuild}), as a picocli mixin: {@code --config FILE} (Java
 * properties, like Kafka's {@code server.properties}) and repeatable {@code --set KEY=VALUE}, which
 * wins. Every key is checked ({@link ConfigDocsCommand#checkKeys}): an unknown one fails before
 * anything starts. Not thread-safe (filled by the parser, read once).
 */
final class SettingsOptions {
    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Properties file of settings (Kafka's server.properties format).")
    Path configFile;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A setting; overrides the config file. Repeatable.")
    Map<String, String> sets = new LinkedHashMap<>();

    /**
     * The effective settings: defaults, overridden by {@code --config FILE}, overridden by each
     * {@code --set}.
     *
     * @throws io.tierlog.common.ConfigException for a key no module declares
     * @throws CliException when the config file is missing
     */
    Config load() throws IOException {
        Config c = Config.empty();
        if (configFile != null) {
            if (!Files.isRegularFile(configFile)) {
                throw CliException.usage(
                        "--config "
                                + configFile
                                + ": "
                                + (Files.isDirectory(configFile)
                                        ? "is a directory, not a properties file"
                                        : "no such file"));
            }
            c = Config.load(configFile);
            ConfigDocsCommand.checkKeys(c, "--config " + configFile);
        }
        ConfigDocsCommand.checkKeys(Config.of(sets), "--set");
        return c.with(sets);
    }
}
