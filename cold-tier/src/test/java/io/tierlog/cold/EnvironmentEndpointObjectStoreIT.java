package io.tierlog.cold;

import io.tierlog.common.Config;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The object-store contract against any S3-compatible endpoint (MinIO, Ceph RGW, AWS S3) given by
 * environment variables: {@code TIERLOG_IT_S3_ENDPOINT} (required to run; may be {@code aws} for
 * AWS S3 itself), {@code TIERLOG_IT_S3_BUCKET} (an existing bucket, default {@code tierlog}),
 * {@code TIERLOG_IT_S3_REGION} (default {@code us-east-1}), {@code TIERLOG_IT_S3_ACCESS_KEY} and
 * {@code TIERLOG_IT_S3_SECRET_KEY} (default: the AWS default credentials chain). Objects are
 * written under a random prefix and deleted afterwards.
 */
@EnabledIfEnvironmentVariable(
        named = "TIERLOG_IT_S3_ENDPOINT",
        matches = ".+",
        disabledReason =
                "set TIERLOG_IT_S3_ENDPOINT (and TIERLOG_IT_S3_ACCESS_KEY, TIERLOG_IT_S3_SECRET_KEY,"
                        + " TIERLOG_IT_S3_BUCKET, TIERLOG_IT_S3_REGION) to run the contract"
                        + " against a real endpoint")
class EnvironmentEndpointObjectStoreIT extends ObjectStoreContract {

    static Config config() {
        Map<String, String> m = new HashMap<>();
        String endpoint = System.getenv("TIERLOG_IT_S3_ENDPOINT");
        if (!"aws".equalsIgnoreCase(endpoint)) {
            m.put(ColdTierOptions.S3_ENDPOINT.key(), endpoint);
            m.put(ColdTierOptions.S3_PATH_STYLE.key(), "true");
        }
        putIfSet(m, ColdTierOptions.S3_BUCKET.key(), "TIERLOG_IT_S3_BUCKET");
        putIfSet(m, ColdTierOptions.S3_REGION.key(), "TIERLOG_IT_S3_REGION");
        putIfSet(m, ColdTierOptions.S3_ACCESS_KEY.key(), "TIERLOG_IT_S3_ACCESS_KEY");
        putIfSet(m, ColdTierOptions.S3_SECRET_KEY.key(), "TIERLOG_IT_S3_SECRET_KEY");
        m.put(
                ColdTierOptions.S3_MULTIPART_THRESHOLD_BYTES.key(),
                Long.toString(MULTIPART_THRESHOLD));
        m.put(ColdTierOptions.S3_MULTIPART_PART_BYTES.key(), "5MiB");
        return Config.of(m);
    }

    private static void putIfSet(Map<String, String> m, String key, String env) {
        String v = System.getenv(env);
        if (v != null && !v.isBlank()) {
            m.put(key, v);
        }
    }

    @Override
    protected ObjectStore createStore() {
        return S3ObjectStore.create(config());
    }
}
