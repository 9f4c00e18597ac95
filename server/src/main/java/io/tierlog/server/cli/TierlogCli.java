package io.tierlog.server.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Entry point of {@code bin/tierlog}. Subcommands are registered in {@link #subcommands()}, the one
 * list to extend. Every error is one line on stderr and an exit code of {@link CliErrors}; {@code
 * --verbose} (accepted by every subcommand) adds the stack trace. Not thread-safe (one run per
 * instance).
 */
@Command(
        name = "tierlog",
        mixinStandardHelpOptions = true,
        version = "tierlog 0.1.0-SNAPSHOT",
        description = "Tiered storage engine for Kafka-style commit logs.")
public final class TierlogCli implements Runnable {

    /** Every subcommand of {@code tierlog}; add new ones here. */
    static Object[] subcommands() {
        return new Object[] {
            new ServeCommand(),
            new DumpSegmentCommand(),
            new ConfigDocsCommand(),
            new OffloadCommand(ConfigDocsCommand::checkKeys),
            new TieredCommands.Inspect(),
            new TieredCommands.Verify(),
            new CatalogCommand(),
        };
    }

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
            names = CliErrors.VERBOSE,
            scope = CommandLine.ScopeType.INHERIT,
            description = "On an error, print the stack trace after the one-line message.")
    boolean verbose;

    public static void main(String[] args) {
        int code;
        try {
            code = commandLine().execute(args);
        } catch (Throwable t) { // an Error picocli lets through (e.g. a class that fails to load)
            code =
                    CliErrors.report(
                            t,
                            new CommandLine(new TierlogCli()),
                            List.of(args).contains(CliErrors.VERBOSE));
        }
        System.exit(code);
    }

    /**
     * The configured command line (tests execute it directly): every subcommand, and errors as one
     * line with a documented exit code ({@link CliErrors}).
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TierlogCli());
        for (Object sub : subcommands()) {
            cl.addSubcommand(sub);
        }
        CliErrors.install(cl);
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
