package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Object keys are deterministic, sortable by offset, unique per attempt, and parse back. */
class ObjectKeysTest {
    @Test
    void keyFollowsTheLayoutAndParsesBack() {
        String key = ObjectKeys.key("/prod/c1/", "orders", 3, 1200, 1299, "abc-123");
        assertThat(key)
                .isEqualTo(
                        "prod/c1/orders/3/00000000000000001200-00000000000000001299-abc-123.parquet");
        ObjectKeys.ParsedKey p = ObjectKeys.parse(key).orElseThrow();
        assertThat(p)
                .isEqualTo(new ObjectKeys.ParsedKey("prod/c1", "orders", 3, 1200, 1299, "abc-123"));
    }

    @Test
    void emptyPrefixHasNoLeadingSlash() {
        String key = ObjectKeys.newKey("", "t", 0, 0, 0);
        assertThat(key).startsWith("t/0/00000000000000000000-00000000000000000000-");
        assertThat(ObjectKeys.parse(key).orElseThrow().prefix()).isEmpty();
        assertThat(ObjectKeys.partitionPrefix(null, "t", 0)).isEqualTo("t/0/");
    }

    @Test
    void newKeysForTheSameRangeDifferAndSortByOffset() {
        String a = ObjectKeys.newKey("p", "t", 0, 5, 9);
        String b = ObjectKeys.newKey("p", "t", 0, 5, 9);
        String later = ObjectKeys.newKey("p", "t", 0, 10, 10_000_000_000L);
        assertThat(a).isNotEqualTo(b);
        assertThat(a.compareTo(later)).isNegative();
        assertThat(b.compareTo(later)).isNegative();
    }

    @Test
    void foreignKeysDoNotParse() {
        assertThat(ObjectKeys.parse("p/t/0/notes.txt")).isEmpty();
        assertThat(ObjectKeys.parse("t/x/00000000000000000000-00000000000000000001-a.parquet"))
                .isEmpty();
        assertThat(ObjectKeys.parse("t/0/0-1-a.parquet")).isEmpty();
    }

    @Test
    void invalidPartsAreRejected() {
        assertThatThrownBy(() -> ObjectKeys.newKey("", "a/b", 0, 0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectKeys.newKey("", "t", 0, 5, 4))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectKeys.key("", "t", 0, 0, 1, "bad/suffix"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
