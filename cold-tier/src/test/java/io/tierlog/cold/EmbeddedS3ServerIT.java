package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.EmbeddedObjectStore;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded S3 server keeps objects on disk across restarts, on the port it was given; the
 * storage modules find it through {@link EmbeddedObjectStore} (ServiceLoader), and the settings it
 * hands out are the cold tier's.
 */
class EmbeddedS3ServerIT {
    @TempDir Path dir;

    @Test
    void objectsSurviveARestartOnTheSamePort() throws Exception {
        int port;
        try (EmbeddedS3Server s = EmbeddedS3Server.start(dir, 0, "bucket-a");
                S3ObjectStore store = S3ObjectStore.create(s.clientConfig())) {
            port = s.port();
            assertThat(s.endpoint().getHost()).isEqualTo("127.0.0.1");
            store.put("x/y", new byte[] {4, 2});
        }
        try (EmbeddedS3Server s = EmbeddedS3Server.start(dir, port, "bucket-a");
                S3ObjectStore store = S3ObjectStore.create(s.clientConfig())) {
            assertThat(s.port()).isEqualTo(port);
            assertThat(store.get("x/y").get(1)).isEqualTo((byte) 2);
            assertThat(store.list("")).extracting(ObjectInfo::key).containsExactly("x/y");
        }
    }

    @Test
    void theStorageModulesFindTheServerOnTheClassPathAndReachItWithItsClientConfig()
            throws Exception {
        try (EmbeddedObjectStore s = EmbeddedObjectStore.start(dir);
                S3ObjectStore store = S3ObjectStore.create(s.clientConfig())) {
            assertThat(s).isInstanceOf(EmbeddedS3Server.class);
            assertThat(s.dir()).isEqualTo(dir);
            assertThat(ColdTierOptions.from(s.clientConfig()).endpoint())
                    .contains(s.endpoint().toString());
            store.put("k", new byte[] {7});
            assertThat(dir.resolve(EmbeddedObjectStore.DEFAULT_BUCKET).resolve("k")).exists();
        }
    }
}
