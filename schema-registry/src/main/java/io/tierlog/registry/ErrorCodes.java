package io.tierlog.registry;

/**
 * Confluent Schema Registry's error codes ({@code error_code} of a REST error body): the first
 * three digits are the HTTP status. Constants only, so thread-safe.
 */
public final class ErrorCodes {
    private ErrorCodes() {}

    public static final int SUBJECT_NOT_FOUND = 40401;
    public static final int VERSION_NOT_FOUND = 40402;
    public static final int SCHEMA_NOT_FOUND = 40403;
    public static final int SUBJECT_SOFT_DELETED = 40404;
    public static final int SUBJECT_NOT_SOFT_DELETED = 40405;
    public static final int SCHEMA_VERSION_SOFT_DELETED = 40406;
    public static final int SCHEMA_VERSION_NOT_SOFT_DELETED = 40407;
    public static final int SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408;
    public static final int SUBJECT_MODE_NOT_CONFIGURED = 40409;
    public static final int INCOMPATIBLE_SCHEMA = 409;
    public static final int INVALID_SCHEMA = 42201;
    public static final int INVALID_VERSION = 42202;
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    public static final int INVALID_MODE = 42204;
    public static final int OPERATION_NOT_PERMITTED = 42205;
    public static final int REFERENCE_EXISTS = 42206;
    public static final int INVALID_SUBJECT = 42208;
    public static final int STORE_ERROR = 50001;
}
