package io.tierlog.server.cli.archviolation;

import io.tierlog.compactor.Compactor;

/** Deliberate violation (ModuleRulesBiteTest): a CLI command using the compactor directly. */
final class CommandRunsTheCompactor {
    private CommandRunsTheCompactor() {}

    static void stop(Compactor compactor) {
        compactor.close();
    }
}
