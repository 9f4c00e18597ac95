package io.tierlog.server.cli;

import io.tierlog.common.ConfigException;
import io.tierlog.common.DirLock;
import io.tierlog.engine.Tools;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every {@code tierlog} command fails: one line on stderr, {@code tierlog <command>: <what went
 * wrong>}, and a documented exit code; the stack trace only with {@code --verbose}. Installed on
 * the command line by {@link TierlogCli#commandLine()} as picocli's parameter and execution
 * exception handlers, so a command need not catch anything to fail well; it throws what it has
 * ({@link CliException} for a failure it has put into words).
 *
 * <p>Exit codes (README, "Command line"):
 *
 * <ul>
 *   <li>{@link #OK} 0: success.
 *   <li>{@link #FOUND_PROBLEMS} 1: the command ran and found what it checks for is wrong ({@code
 *       verify} found violations, {@code offload --once} had a partition fail).
 *   <li>{@link #USAGE} 2: the command cannot run as given: bad arguments, an unknown or invalid
 *       setting, a file or data dir that is missing or not what the command needs, a catalog that
 *       is missing.
 *   <li>{@link #FAILED} 3: it failed while running: a port in use, a data dir locked by another
 *       process, an I/O error, anything unexpected.
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
final class CliErrors {
    static final int OK = 0;
    static final int FOUND_PROBLEMS = 1;
    static final int USAGE = 2;
    static final int FAILED = 3;

    /** The global option that adds stack traces. */
    static final String VERBOSE = "--verbose";

    private CliErrors() {}

    /** A failure as it is reported: exit code and one line (without the command prefix). */
    record Failure(int exitCode, String message) {}

    /** Installs both handlers on {@code cl} (its subcommands inherit them). */
    static void install(CommandLine cl) {
        cl.setParameterExceptionHandler(CliErrors::handleParseException);
        cl.setExecutionExceptionHandler(CliErrors::handleExecutionException);
    }

    private static int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        StringBuilder m = new StringBuilder(oneLine(ex.getMessage()));
        if (ex instanceof UnmatchedArgumentException u) {
            List<String> suggestions = u.getSuggestions();
            if (!suggestions.isEmpty()) {
                m.append(" (did you mean ").append(String.join(" or ", suggestions)).append("?)");
            }
        }
        m.append("; see `").append(qualifiedName(cl)).append(" --help`");
        PrintWriter err = cl.getErr();
        err.println(qualifiedName(cl) + ": " + m);
        if (List.of(args).contains(VERBOSE)) {
            ex.printStackTrace(err);
        }
        err.flush();
        return USAGE;
    }

    private static int handleExecutionException(
            Exception ex, CommandLine cl, ParseResult parseResult) {
        return report(ex, cl, verbose(parseResult));
    }

    /** Prints {@code failure} as one line (and its stack trace when verbose); its exit code. */
    static int report(Throwable failure, CommandLine cl, boolean verbose) {
        Failure f = classify(failure);
        PrintWriter err = cl.getErr();
        err.println(qualifiedName(cl) + ": " + f.message());
        if (verbose) {
            failure.printStackTrace(err);
        }
        err.flush();
        return f.exitCode();
    }

    /**
     * What {@code failure} means to a user: the first cause in its chain this class knows, or an
     * unexpected failure naming the exception and pointing to {@code --verbose}.
     */
    static Failure classify(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
            Failure known = known(t);
            if (known != null) {
                return known;
            }
        }
        // An I/O error is reported by its message; anything else may be a bug: say what it was.
        if (failure instanceof IOException e && e.getMessage() != null) {
            return new Failure(FAILED, oneLine(e.getMessage()));
        }
        return new Failure(
                FAILED,
                "unexpected error: "
                        + oneLine(failure.toString())
                        + " (run with "
                        + VERBOSE
                        + " for the stack trace)");
    }

    private static Failure known(Throwable t) {
        if (t instanceof CliException e) {
            return new Failure(e.exitCode(), oneLine(e.getMessage()));
        }
        if (t instanceof ConfigException e) {
            return new Failure(USAGE, oneLine(e.getMessage()));
        }
        java.util.Optional<String> catalogProblem = Tools.catalogUnavailable(t);
        if (catalogProblem.isPresent()) {
            String m = oneLine(catalogProblem.get());
            return new Failure(
                    USAGE,
                    m.contains("catalog rebuild")
                            ? m
                            : m
                                    + " (restore the catalog, or rebuild it from the bucket with"
                                    + " `tierlog catalog rebuild`)");
        }
        if (t instanceof DirLock.InUseException e) {
            return new Failure(FAILED, oneLine(e.getMessage()));
        }
        if (t instanceof NoSuchFileException e) {
            return new Failure(USAGE, e.getFile() + ": " + reason(e, "no such file or directory"));
        }
        if (t instanceof NotDirectoryException e) {
            return new Failure(USAGE, e.getFile() + ": " + reason(e, "not a directory"));
        }
        if (t instanceof AccessDeniedException e) {
            return new Failure(FAILED, e.getFile() + ": " + reason(e, "permission denied"));
        }
        if (t instanceof FileSystemException e && e.getFile() != null) {
            return new Failure(
                    FAILED, e.getFile() + ": " + reason(e, e.getClass().getSimpleName()));
        }
        if (t instanceof java.net.BindException e) {
            return new Failure(FAILED, oneLine(String.valueOf(e.getMessage())));
        }
        return null;
    }

    private static String reason(FileSystemException e, String otherwise) {
        return e.getReason() == null ? otherwise : oneLine(e.getReason());
    }

    /** Whether {@code --verbose} was given to the command or any parent of it. */
    static boolean verbose(ParseResult parseResult) {
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(VERBOSE)) {
                return true;
            }
        }
        return false;
    }

    /** {@code tierlog catalog rebuild} for the rebuild subcommand. */
    static String qualifiedName(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName();
    }

    /** A message on one line: line breaks (an SQL error's, a wrapped cause's) become spaces. */
    static String oneLine(String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
