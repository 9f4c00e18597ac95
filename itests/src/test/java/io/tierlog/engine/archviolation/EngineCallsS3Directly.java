package io.tierlog.engine.archviolation;

import software.amazon.awssdk.services.s3.S3Client;

/** Deliberate violation (ModuleRulesBiteTest): the engine bypassing the ObjectStore seam. */
final class EngineCallsS3Directly {
    private final S3Client s3;

    EngineCallsS3Directly(S3Client s3) {
        this.s3 = s3;
    }

    void close() {
        s3.close();
    }
}
