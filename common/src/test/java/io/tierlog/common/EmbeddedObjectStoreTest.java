package io.tierlog.common;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code tierlog-embedded-s3} on the class path (common's tests do not have it), asking for
 * the embedded default is one clear line saying what to do, and nothing is created.
 */
class EmbeddedObjectStoreTest {
    @TempDir Path dir;

    @Test
    void withoutTheEmbeddedS3ArtifactStartingTheDefaultSaysToSetTheEndpointOrAddTheArtifact() {
        Path s3 = dir.resolve("s3");
        assertThatThrownBy(() -> EmbeddedObjectStore.start(s3))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "the embedded S3 server (the default without s3.endpoint) is not on the"
                                + " class path: set s3.endpoint to your S3 service, or add"
                                + " io.tierlog:tierlog-embedded-s3")
                .hasNoCause();
        org.assertj.core.api.Assertions.assertThat(s3).doesNotExist();
    }
}
