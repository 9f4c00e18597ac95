package org.apache.kafka.common.utils;

/**
 * A test-only bridge for the FileStream connectors of {@code connect-file} 4.3.1, the newest on
 * Maven Central (Kafka 4.4.0 publishes no {@code connect-file}): their {@code version()} calls
 * {@code org.apache.kafka.common.utils.AppInfoParser.getVersion()}, which kafka-clients 4.4.0 moved
 * to {@code org.apache.kafka.common.utils.internals}. Nothing else on the class path names this
 * class. Thread-safe: stateless.
 */
public final class AppInfoParser {
    private AppInfoParser() {}

    /** The kafka-clients version on the class path. */
    public static String getVersion() {
        return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
    }
}
