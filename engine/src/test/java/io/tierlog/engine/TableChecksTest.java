package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.iceberg.TableAudit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** verify's reading of a table audit: loss against registration lag, extra, duplicate, drift. */
class TableChecksTest {
    static final long NOW = 1_700_000_100_000L;
    static final long TARGET = 60_000;

    static ColdObject object(String key, int partition, long first, long createdMs) {
        return new ColdObject(
                "t",
                partition,
                first,
                first + 9,
                0,
                0,
                10,
                100,
                key,
                Instant.ofEpochMilli(createdMs));
    }

    static TableAudit audit(
            List<String> missing,
            List<String> extra,
            List<String> duplicates,
            Optional<String> drift) {
        return new TableAudit(
                "t", "tierlog.t", true, Optional.empty(), missing, extra, duplicates, drift);
    }

    @Test
    void aMissingObjectOlderThanTheTargetIsLossAYoungerOneIsLag() {
        Map<String, ColdObject> objects =
                Map.of(
                        "old", object("old", 1, 0, NOW - TARGET - 1),
                        "new", object("new", 2, 10, NOW - TARGET));
        List<Violation> out = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        TableChecks.map(
                audit(List.of("old", "new"), List.of(), List.of(), Optional.empty()),
                objects,
                TARGET,
                NOW,
                out,
                notes);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).kind()).isEqualTo(Violation.Kind.ICEBERG_TABLE_MISSING_OBJECT);
        assertThat(out.get(0).tp().partition()).isEqualTo(1);
        assertThat(out.get(0).message()).contains("old", "0..9");
        assertThat(notes).singleElement().asString().contains("1 objects", "registration lag");
    }

    @Test
    void extraDuplicateAndDriftAreEachAViolation() {
        List<Violation> out = new ArrayList<>();
        TableChecks.map(
                audit(List.of(), List.of("s3://b/x"), List.of("s3://b/y"), Optional.of("spark")),
                Map.of(),
                TARGET,
                NOW,
                out,
                new ArrayList<>());
        assertThat(out)
                .extracting(Violation::kind)
                .containsExactly(
                        Violation.Kind.ICEBERG_TABLE_EXTRA_FILE,
                        Violation.Kind.ICEBERG_TABLE_DUPLICATE,
                        Violation.Kind.ICEBERG_TABLE_DRIFT);
    }

    @Test
    void anUnreadableTableIsUnavailableAndNothingElse() {
        List<Violation> out = new ArrayList<>();
        TableChecks.map(
                new TableAudit(
                        "t",
                        "tierlog.t",
                        false,
                        Optional.of("catalog down"),
                        List.of("k"),
                        List.of(),
                        List.of(),
                        Optional.empty()),
                Map.of(),
                TARGET,
                NOW,
                out,
                new ArrayList<>());
        assertThat(out)
                .singleElement()
                .extracting(Violation::kind)
                .isEqualTo(Violation.Kind.ICEBERG_TABLE_UNAVAILABLE);
        assertThat(out.get(0).message()).contains("catalog down");
    }

    @Test
    void aCleanAuditGivesNothing() {
        List<Violation> out = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        TableChecks.map(
                audit(List.of(), List.of(), List.of(), Optional.empty()),
                Map.of(),
                TARGET,
                NOW,
                out,
                notes);
        assertThat(out).isEmpty();
        assertThat(notes).isEmpty();
    }
}
