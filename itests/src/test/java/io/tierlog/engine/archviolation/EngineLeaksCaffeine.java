package io.tierlog.engine.archviolation;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/** Deliberate violation (ModuleRulesBiteTest): a cache library in a public signature. */
public final class EngineLeaksCaffeine {
    private final Cache<String, byte[]> cache = Caffeine.newBuilder().maximumSize(1).build();

    public Cache<String, byte[]> cache() {
        return cache;
    }
}
