package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.CatalogException;
import io.tierlog.cold.ObjectCorruptException;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStoreException;
import io.tierlog.cold.ObjectStoreTimeoutException;
import io.tierlog.engine.ColdReadErrors.Cause;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The {@code cause} tag of {@link MetricNames#COLD_READ_ERRORS}: each failure a cold read can meet
 * maps to the tag an operator acts on, however deeply it is wrapped.
 */
class ColdReadCauseTest {
    @Test
    void eachFailureMapsToTheCauseAnOperatorActsOn() {
        assertThat(Cause.of(new ObjectNotFoundException("k"))).isEqualTo(Cause.NOT_FOUND);
        assertThat(Cause.of(new ObjectCorruptException("k", "no magic", null)))
                .isEqualTo(Cause.CORRUPT);
        assertThat(Cause.of(new ObjectStoreTimeoutException("k", "timed out", null)))
                .isEqualTo(Cause.TIMEOUT);
        assertThat(Cause.of(new TimeoutException("cold.read.timeout.ms"))).isEqualTo(Cause.TIMEOUT);
        assertThat(Cause.of(new ObjectStoreException("k", "HTTP 503")))
                .isEqualTo(Cause.UNAVAILABLE);
        assertThat(Cause.of(new IllegalStateException("bug"))).isEqualTo(Cause.OTHER);
    }

    @Test
    void wrappersAreLookedThrough() {
        Throwable catalog =
                new ColdReadException("catalog unavailable", new CatalogException("locked"));
        assertThat(Cause.of(new CompletionException(catalog))).isEqualTo(Cause.CATALOG);
        Throwable corrupt =
                new CompletionException(
                        new ObjectCorruptException(
                                "k", "bad page", new java.io.IOException("crc")));
        assertThat(Cause.of(corrupt)).isEqualTo(Cause.CORRUPT);
        assertThat(Cause.TIMEOUT.tag()).isEqualTo("timeout");
        assertThat(Cause.NOT_FOUND.tag()).isEqualTo("not_found");
    }

    @Test
    void aStoreFailureInsideADecodeFailureIsTheStoresNotCorruption() {
        ObjectStoreException s3 = new ObjectStoreTimeoutException("k", "GET timed out", null);
        ObjectStoreException seen =
                ObjectCorruptException.decodeFailure(
                        "k",
                        "cannot read footer",
                        new java.io.UncheckedIOException(new java.io.IOException(s3)));
        assertThat(seen).isSameAs(s3);
        assertThat(Cause.of(seen)).isEqualTo(Cause.TIMEOUT);
        assertThat(
                        ObjectCorruptException.decodeFailure(
                                "k", "cannot read footer", new RuntimeException("garbage")))
                .isInstanceOf(ObjectCorruptException.class);
    }
}
