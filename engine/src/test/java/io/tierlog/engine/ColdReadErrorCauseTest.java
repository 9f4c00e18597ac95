package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.CatalogException;
import io.tierlog.cold.ObjectCorruptException;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStoreException;
import io.tierlog.cold.ObjectStoreTimeoutException;
import io.tierlog.engine.ColdReader.ErrorCause;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The {@code cause} tag of {@link MetricNames#COLD_READ_ERRORS}: each failure a cold read can meet
 * maps to the tag an operator acts on, however deeply it is wrapped.
 */
class ColdReadErrorCauseTest {
    @Test
    void eachFailureMapsToTheCauseAnOperatorActsOn() {
        assertThat(ErrorCause.of(new ObjectNotFoundException("k"))).isEqualTo(ErrorCause.NOT_FOUND);
        assertThat(ErrorCause.of(new ObjectCorruptException("k", "no magic", null)))
                .isEqualTo(ErrorCause.CORRUPT);
        assertThat(ErrorCause.of(new ObjectStoreTimeoutException("k", "timed out", null)))
                .isEqualTo(ErrorCause.TIMEOUT);
        assertThat(ErrorCause.of(new TimeoutException("cold.read.timeout.ms")))
                .isEqualTo(ErrorCause.TIMEOUT);
        assertThat(ErrorCause.of(new ObjectStoreException("k", "HTTP 503")))
                .isEqualTo(ErrorCause.UNAVAILABLE);
        assertThat(ErrorCause.of(new IllegalStateException("bug"))).isEqualTo(ErrorCause.OTHER);
    }

    @Test
    void wrappersAreLookedThrough() {
        Throwable catalog =
                new ColdReadException("catalog unavailable", new CatalogException("locked"));
        assertThat(ErrorCause.of(new CompletionException(catalog))).isEqualTo(ErrorCause.CATALOG);
        Throwable corrupt =
                new CompletionException(
                        new ObjectCorruptException(
                                "k", "bad page", new java.io.IOException("crc")));
        assertThat(ErrorCause.of(corrupt)).isEqualTo(ErrorCause.CORRUPT);
        assertThat(ErrorCause.TIMEOUT.tag()).isEqualTo("timeout");
        assertThat(ErrorCause.NOT_FOUND.tag()).isEqualTo("not_found");
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
        assertThat(ErrorCause.of(seen)).isEqualTo(ErrorCause.TIMEOUT);
        assertThat(
                        ObjectCorruptException.decodeFailure(
                                "k", "cannot read footer", new RuntimeException("garbage")))
                .isInstanceOf(ObjectCorruptException.class);
    }
}
