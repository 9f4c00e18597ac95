package io.tierlog.engine;

import io.tierlog.common.AtomicFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The dynamic broker configs (Kafka's {@code kafka-configs --entity-type brokers}): topic defaults
 * under their Kafka broker names ({@code log.retention.ms}, {@code message.max.bytes}, ...), set
 * for this node ({@code --entity-name 0}) or as the cluster default ({@code --entity-default}).
 * They rank above the server's config file and below a topic's own override, as in Kafka.
 *
 * <p>Kept in {@code <data.dir>/meta/broker-configs.properties}, replaced whole and durably ({@link
 * AtomicFiles}); keys are {@code node.<key>} and {@code default.<key>}. The data dir and not the
 * catalog: these are one server's settings, and a catalog shared by several processes holds the
 * data they share.
 *
 * <p>Thread-safe: reads see an immutable snapshot; changes are serialised.
 */
final class DynamicBrokerConfigs {
    /** Whose value: this node's, or the cluster default. */
    enum Scope {
        NODE("node."),
        DEFAULT("default.");

        final String prefix;

        Scope(String prefix) {
            this.prefix = prefix;
        }
    }

    private final Path file;
    private volatile Map<String, String> node;
    private volatile Map<String, String> clusterDefault;

    private DynamicBrokerConfigs(Path file, Map<String, String> node, Map<String, String> def) {
        this.file = file;
        this.node = node;
        this.clusterDefault = def;
    }

    /** Reads {@code <dataDir>/meta/broker-configs.properties} (none: no dynamic config). */
    static DynamicBrokerConfigs open(Path dataDir) throws IOException {
        Path f = dataDir.resolve("meta").resolve("broker-configs.properties");
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(f)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            // never altered
        }
        Map<String, String> node = new TreeMap<>();
        Map<String, String> def = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith(Scope.NODE.prefix)) {
                node.put(k.substring(Scope.NODE.prefix.length()), p.getProperty(k));
            } else if (k.startsWith(Scope.DEFAULT.prefix)) {
                def.put(k.substring(Scope.DEFAULT.prefix.length()), p.getProperty(k));
            }
        }
        return new DynamicBrokerConfigs(f, Map.copyOf(node), Map.copyOf(def));
    }

    /** No dynamic config and no file (tests, read-only tools). */
    static DynamicBrokerConfigs none() {
        return new DynamicBrokerConfigs(null, Map.of(), Map.of());
    }

    /** The configs of {@code scope}, by Kafka broker key. */
    Map<String, String> get(Scope scope) {
        return scope == Scope.NODE ? node : clusterDefault;
    }

    /** Replaces the configs of {@code scope} (durable when this returns). */
    synchronized void replace(Scope scope, Map<String, String> configs) {
        Map<String, String> n = scope == Scope.NODE ? Map.copyOf(configs) : node;
        Map<String, String> d = scope == Scope.DEFAULT ? Map.copyOf(configs) : clusterDefault;
        if (file != null) {
            Properties p = new Properties();
            n.forEach((k, v) -> p.setProperty(Scope.NODE.prefix + k, v));
            d.forEach((k, v) -> p.setProperty(Scope.DEFAULT.prefix + k, v));
            StringWriter w = new StringWriter();
            try {
                p.store(w, "dynamic broker configs (kafka-configs --entity-type brokers)");
                Files.createDirectories(file.getParent());
                AtomicFiles.write(file, w.toString().getBytes(StandardCharsets.ISO_8859_1));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
        node = n;
        clusterDefault = d;
    }
}
