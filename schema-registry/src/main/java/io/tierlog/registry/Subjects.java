package io.tierlog.registry;

/**
 * Subject names and version specs as Confluent's API accepts them, and the errors that name them.
 * Stateless, so thread-safe.
 */
final class Subjects {
    private Subjects() {}

    /** The version spec of the latest version. */
    static final String LATEST = "latest";

    /** {@code latest} (or {@code -1}) as a number. */
    static final int LATEST_NUMBER = -1;

    /**
     * Refuses a name no subject may have: empty, or holding control characters.
     *
     * @throws SchemaRegistryException 42208
     */
    static void validate(String subject) {
        if (subject == null || subject.isEmpty()) {
            throw new SchemaRegistryException(ErrorCodes.INVALID_SUBJECT, "Empty subject name");
        }
        for (int i = 0; i < subject.length(); i++) {
            if (Character.isISOControl(subject.charAt(i))) {
                throw new SchemaRegistryException(
                        ErrorCodes.INVALID_SUBJECT,
                        "Invalid subject name: it holds a control character at index " + i);
            }
        }
    }

    /**
     * The version a spec names: a number from 1, or {@link #LATEST_NUMBER} for {@code latest} or
     * {@code -1}.
     *
     * @throws SchemaRegistryException 42202 for anything else
     */
    static int version(String spec) {
        if (LATEST.equalsIgnoreCase(spec)) {
            return LATEST_NUMBER;
        }
        try {
            int v = Integer.parseInt(spec);
            if (v >= 1 || v == LATEST_NUMBER) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new SchemaRegistryException(
                ErrorCodes.INVALID_VERSION,
                "The specified version '"
                        + spec
                        + "' is not a valid version id. Allowed values are between [1, 2^31-1]"
                        + " and the string \"latest\"");
    }

    static SchemaRegistryException notFound(String subject) {
        return new SchemaRegistryException(
                ErrorCodes.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
    }

    static SchemaRegistryException versionNotFound(String subject, String version) {
        return new SchemaRegistryException(
                ErrorCodes.VERSION_NOT_FOUND,
                "Version " + version + " not found for subject '" + subject + "'.");
    }
}
