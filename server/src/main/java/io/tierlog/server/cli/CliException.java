package io.tierlog.server.cli;

/**
 * A failure a command has already put into words: {@link CliErrors} prints {@code tierlog
 * <command>: <message>} as one line on stderr and exits with {@link #exitCode()}. Immutable.
 */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** A usage or configuration error ({@link CliErrors#USAGE}). */
    static CliException usage(String message) {
        return new CliException(CliErrors.USAGE, message);
    }

    int exitCode() {
        return exitCode;
    }
}
