package io.tierlog.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code bin/tierlog}. Subcommands are registered in {@link #SUBCOMMANDS}, the one
 * list to extend. Stateless.
 */
@Command(
        name = "tierlog",
        mixinStandardHelpOptions = true,
        version = "tierlog 0.1.0-SNAPSHOT",
        description = "Tiered storage engine for Kafka-style commit logs.")
public final class TierlogCli implements Runnable {

    /** Every subcommand of {@code tierlog}; add new ones here. */
    static final Object[] SUBCOMMANDS = {
        new ServeCommand(),
        new DumpSegmentCommand(),
        new ConfigDocsCommand(),
        new io.tierlog.compactor.cli.OffloadCommand(),
        new TieredCommands.Inspect(),
        new TieredCommands.Verify(),
        new CatalogCommand(),
    };

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (tests execute it directly). */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TierlogCli());
        for (Object sub : SUBCOMMANDS) {
            cl.addSubcommand(sub);
        }
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
