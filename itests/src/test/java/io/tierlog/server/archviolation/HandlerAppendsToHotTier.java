package io.tierlog.server.archviolation;

import io.tierlog.hot.LogManager;

/** Deliberate violation (ModuleRulesBiteTest): the server going around the engine. */
final class HandlerAppendsToHotTier {
    private final LogManager logs;

    HandlerAppendsToHotTier(LogManager logs) {
        this.logs = logs;
    }

    LogManager logs() {
        return logs;
    }
}
