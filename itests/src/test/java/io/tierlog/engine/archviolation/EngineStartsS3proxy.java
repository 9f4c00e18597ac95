package io.tierlog.engine.archviolation;

import org.gaul.s3proxy.S3Proxy;

/** Deliberate violation (ModuleRulesBiteTest): s3proxy outside the embedded-s3 module. */
final class EngineStartsS3proxy {
    private EngineStartsS3proxy() {}

    static void stop(S3Proxy proxy) throws Exception {
        proxy.stop();
    }
}
