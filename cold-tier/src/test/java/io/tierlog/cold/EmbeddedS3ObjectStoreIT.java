package io.tierlog.cold;

import io.tierlog.s3.embedded.EmbeddedS3Server;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The object-store contract against the in-process, filesystem-backed s3proxy. */
class EmbeddedS3ObjectStoreIT extends ObjectStoreContract {
    @TempDir static Path dir;
    static EmbeddedS3Server server;

    @BeforeAll
    static void startServer() throws Exception {
        server = EmbeddedS3Server.start(dir);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected ObjectStore createStore() {
        return S3ObjectStore.create(
                server.clientConfig()
                        .with(
                                ColdTierOptions.S3_MULTIPART_THRESHOLD_BYTES.key(),
                                Long.toString(MULTIPART_THRESHOLD))
                        .with(ColdTierOptions.S3_MULTIPART_PART_BYTES.key(), "5MiB"));
    }
}
