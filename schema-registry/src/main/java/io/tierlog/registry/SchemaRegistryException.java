package io.tierlog.registry;

/**
 * A refused registry request, with Confluent's error code ({@code error_code} in the REST body) and
 * its HTTP status: for example 40401 subject not found (404), 40402 version not found (404), 40403
 * schema not found (404), 409 incompatible schema (409), 42201 invalid schema (422), 42202 invalid
 * version (422), 42203 invalid compatibility level (422), 40404 subject soft-deleted, 40405 subject
 * not soft-deleted, 42206 reference exists, 50001 store error (500).
 */
public class SchemaRegistryException extends RuntimeException {
    private final int errorCode;

    public SchemaRegistryException(int errorCode, String message) {
        super(message);
        this.errorCode = errorCode;
    }

    public SchemaRegistryException(int errorCode, String message, Throwable cause) {
        super(message, cause);
        this.errorCode = errorCode;
    }

    /** Confluent's error code, for example 40401. */
    public int errorCode() {
        return errorCode;
    }

    /** The HTTP status of the code: its first three digits (409 for 409, 404 for 40401). */
    public int httpStatus() {
        return errorCode < 1000 ? errorCode : errorCode / 100;
    }
}
