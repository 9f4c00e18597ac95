package io.tierlog.cold;

import io.tierlog.common.Config;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The object-store contract against LocalStack's S3 in a container. Skipped (with Testcontainers'
 * reason) where no Docker engine is available.
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackObjectStoreIT extends ObjectStoreContract {
    static final String BUCKET = "tierlog-contract";

    @Container
    static final LocalStackContainer LOCALSTACK =
            new LocalStackContainer(DockerImageName.parse("localstack/localstack:4.4"))
                    .withServices("s3");

    @BeforeAll
    static void createBucket() throws Exception {
        try (S3ObjectStore s = S3ObjectStore.create(config())) {
            s.createBucketIfMissing();
        }
    }

    static Config config() {
        return Config.of(
                Map.of(
                        ColdTierOptions.S3_ENDPOINT.key(), LOCALSTACK.getEndpoint().toString(),
                        ColdTierOptions.S3_REGION.key(), LOCALSTACK.getRegion(),
                        ColdTierOptions.S3_ACCESS_KEY.key(), LOCALSTACK.getAccessKey(),
                        ColdTierOptions.S3_SECRET_KEY.key(), LOCALSTACK.getSecretKey(),
                        ColdTierOptions.S3_PATH_STYLE.key(), "true",
                        ColdTierOptions.S3_BUCKET.key(), BUCKET,
                        ColdTierOptions.S3_MULTIPART_THRESHOLD_BYTES.key(),
                                Long.toString(MULTIPART_THRESHOLD),
                        ColdTierOptions.S3_MULTIPART_PART_BYTES.key(), "5MiB"));
    }

    @Override
    protected ObjectStore createStore() {
        return S3ObjectStore.create(config());
    }
}
