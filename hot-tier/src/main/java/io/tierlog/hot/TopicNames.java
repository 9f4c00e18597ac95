package io.tierlog.hot;

import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's topic-name rules, which also keep every partition folder inside the data dir: only {@code
 * [a-zA-Z0-9._-]}, 1 to 249 characters, not {@code .} or {@code ..}. Stateless.
 */
public final class TopicNames {
    /** Kafka's limit: 255 minus room for a partition suffix and a {@code -delete} marker. */
    public static final int MAX_LENGTH = 249;

    private TopicNames() {}

    /**
     * @throws InvalidTopicException when {@code topic} is not a valid Kafka topic name
     */
    public static void validate(String topic) {
        if (topic == null || topic.isEmpty()) {
            throw new InvalidTopicException("Topic name is empty");
        }
        if (topic.equals(".") || topic.equals("..")) {
            throw new InvalidTopicException("Topic name cannot be \".\" or \"..\"");
        }
        if (topic.length() > MAX_LENGTH) {
            throw new InvalidTopicException(
                    "Topic name is longer than " + MAX_LENGTH + " characters: " + topic.length());
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            boolean ok =
                    (c >= 'a' && c <= 'z')
                            || (c >= 'A' && c <= 'Z')
                            || (c >= '0' && c <= '9')
                            || c == '.'
                            || c == '_'
                            || c == '-';
            if (!ok) {
                throw new InvalidTopicException(
                        "Topic name contains an illegal character at index "
                                + i
                                + " (allowed: a-z A-Z 0-9 . _ -)");
            }
        }
    }

    /** Longest file name (in bytes) of ext4, xfs, btrfs, tmpfs and most others. */
    public static final int MAX_FILE_NAME_BYTES = 255;

    /** Suffix of a partition folder renamed for deletion (Kafka's). */
    public static final String DELETE_DIR_SUFFIX = "-delete";

    /**
     * The name a partition folder is renamed to before its files are deleted, as Kafka's {@code
     * LocalLog.logDeleteDirName}: {@code <topic>-<partition>.<uuid without dashes>-delete}, the
     * topic cut short so that the whole name fits {@link #MAX_FILE_NAME_BYTES} (a 249-character
     * topic would otherwise make a 290-byte name and the rename fail).
     */
    public static String deleteDirName(TopicPartition tp, java.util.UUID id) {
        String suffix =
                "-" + tp.partition() + "." + id.toString().replace("-", "") + DELETE_DIR_SUFFIX;
        String topic = tp.topic();
        return topic.substring(0, Math.min(topic.length(), MAX_FILE_NAME_BYTES - suffix.length()))
                + suffix;
    }

    /**
     * A file name stem for {@code name} (a valid topic: ASCII, one byte a character) that leaves
     * room for a suffix of {@code suffixBytes}: the name itself when it fits, else its first
     * characters, a dot and 16 hex digits of its SHA-256 (stable, so a restart finds the same file;
     * whoever needs the full name stores it inside the file).
     */
    public static String fileStem(String name, int suffixBytes) {
        int room = MAX_FILE_NAME_BYTES - suffixBytes;
        if (name.length() <= room) {
            return name;
        }
        String hash;
        try {
            byte[] d =
                    java.security.MessageDigest.getInstance("SHA-256")
                            .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            hash = java.util.HexFormat.of().formatHex(d, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        return name.substring(0, room - 17) + "." + hash;
    }

    /** True when {@link #validate} would accept the name. */
    public static boolean isValid(String topic) {
        try {
            validate(topic);
            return true;
        } catch (InvalidTopicException e) {
            return false;
        }
    }

    /** The partition folder name, {@code <topic>-<partition>}, after validating the topic. */
    public static String dirName(TopicPartition tp) {
        validate(tp.topic());
        if (tp.partition() < 0) {
            throw new InvalidTopicException("Negative partition: " + tp.partition());
        }
        return tp.topic() + "-" + tp.partition();
    }

    /**
     * Parses a partition folder name {@code <topic>-<partition>}; the topic may itself contain
     * dashes, the partition is after the last one.
     *
     * @throws InvalidTopicException when the name is not a valid partition folder
     */
    public static TopicPartition parseDirName(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            throw new InvalidTopicException("Not a partition folder name: " + name);
        }
        String topic = name.substring(0, dash);
        int partition;
        try {
            partition = Integer.parseInt(name.substring(dash + 1));
        } catch (NumberFormatException e) {
            throw new InvalidTopicException("Not a partition folder name: " + name);
        }
        if (partition < 0) {
            throw new InvalidTopicException("Not a partition folder name: " + name);
        }
        validate(topic);
        return new TopicPartition(topic, partition);
    }
}
