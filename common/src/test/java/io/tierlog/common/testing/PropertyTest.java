package io.tierlog.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The property harness reports what reproduces a failure, and that really reproduces it. */
class PropertyTest {
    private static final Pattern REPORTED_SEED =
            Pattern.compile("-Dtierlog\\.property\\.seed=(-?\\d+)");

    private String savedSeed;
    private String savedTries;

    @BeforeEach
    void clearSystemProperties() {
        savedSeed = System.clearProperty(Property.SEED_PROPERTY);
        savedTries = System.clearProperty(Property.TRIES_PROPERTY);
    }

    @AfterEach
    void restoreSystemProperties() {
        restore(Property.SEED_PROPERTY, savedSeed);
        restore(Property.TRIES_PROPERTY, savedTries);
    }

    @Test
    void sameBaseSeedDrawsTheSameInputsInEveryTry() {
        List<Long> first = new ArrayList<>();
        List<Long> second = new ArrayList<>();
        Property.run(42, 20, r -> first.add(r.nextLong()));
        Property.run(42, 20, r -> second.add(r.nextLong()));
        assertThat(first).hasSize(20).isEqualTo(second);
        assertThat(new HashSet<>(first)).as("each try has its own seed").hasSize(20);
        List<Long> other = new ArrayList<>();
        Property.run(43, 20, r -> other.add(r.nextLong()));
        assertThat(other).doesNotContainAnyElementsOf(first);
    }

    @Test
    void failureNamesTheTryTheSeedAndTheTestAndKeepsTheCause() {
        int[] attempt = {0};
        IllegalStateException boom = new IllegalStateException("boom");
        AssertionError e =
                catchThrowableOfType(
                        AssertionError.class,
                        () ->
                                Property.run(
                                        7,
                                        10,
                                        r -> {
                                            if (++attempt[0] == 4) {
                                                throw boom;
                                            }
                                        }));
        assertThat(attempt[0]).as("stops at the first failing try").isEqualTo(4);
        long seed4 = Property.nextSeed(Property.nextSeed(Property.nextSeed(7)));
        assertThat(e)
                .hasMessageContaining("try 4 of 10")
                .hasMessageContaining("with seed " + seed4)
                .hasMessageContaining("base seed 7")
                .hasMessageContaining(
                        "-Dtest=PropertyTest#failureNamesTheTryTheSeedAndTheTestAndKeepsTheCause")
                .hasMessageContaining("-Dtierlog.property.seed=" + seed4)
                .hasMessageContaining("-Dtierlog.property.tries=1")
                .hasMessageContaining("boom")
                .hasCause(boom);
        assertThat(e.getCause()).isSameAs(boom);
    }

    @Test
    void reportedSeedReproducesTheFailingInputAsTheFirstTry() {
        List<Integer> seen = new ArrayList<>();
        Property.Check rejectsSmallNumbers =
                r -> {
                    int x = r.nextInt(100);
                    seen.add(x);
                    assertThat(x).isGreaterThanOrEqualTo(5);
                };
        AssertionError e =
                catchThrowableOfType(
                        AssertionError.class, () -> Property.forAll(1000, rejectsSmallNumbers));
        assertThat(e).as("1000 tries find a 1-in-20 input").isNotNull();
        int failingInput = seen.get(seen.size() - 1);
        assertThat(failingInput).isLessThan(5);

        Matcher m = REPORTED_SEED.matcher(e.getMessage());
        assertThat(m.find()).as(e.getMessage()).isTrue();
        System.setProperty(Property.SEED_PROPERTY, m.group(1));
        System.setProperty(Property.TRIES_PROPERTY, "1");
        seen.clear();
        assertThatThrownBy(() -> Property.forAll(1000, rejectsSmallNumbers))
                .hasMessageContaining("try 1 of 1 with seed " + m.group(1));
        assertThat(seen).containsExactly(failingInput);
    }

    @Test
    void systemPropertiesSetTriesAndBaseSeed() {
        System.setProperty(Property.TRIES_PROPERTY, "3");
        System.setProperty(Property.SEED_PROPERTY, "99");
        List<Long> viaProperties = new ArrayList<>();
        Property.forAll(50, r -> viaProperties.add(r.nextLong()));
        List<Long> direct = new ArrayList<>();
        Property.run(99, 3, r -> direct.add(r.nextLong()));
        assertThat(viaProperties).hasSize(3).isEqualTo(direct);
    }

    @Test
    void withoutASeedPropertyEveryRunStartsFromADifferentSeed() {
        Set<Long> firstInputs = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            Property.forAll(1, r -> firstInputs.add(r.nextLong()));
        }
        assertThat(firstInputs).hasSize(5);
    }

    @Test
    void malformedSystemPropertiesAreClearErrors() {
        System.setProperty(Property.TRIES_PROPERTY, "0");
        assertThatThrownBy(() -> Property.forAll(5, r -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tierlog.property.tries must be a positive int, got '0'");
        System.clearProperty(Property.TRIES_PROPERTY);
        System.setProperty(Property.SEED_PROPERTY, "0xabc");
        assertThatThrownBy(() -> Property.forAll(5, r -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tierlog.property.seed must be a decimal long, got '0xabc'");
    }

    @Test
    void betweenStaysInRangeAndHitsBothEdges() {
        java.util.Random r = new java.util.Random(1);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            int x = Property.between(r, 1, 1000);
            assertThat(x).isBetween(1, 1000);
            seen.add(x);
        }
        assertThat(seen).contains(1, 2, 999, 1000);
        assertThat(Property.between(r, 5, 5)).isEqualTo(5);
        for (int i = 0; i < 100; i++) {
            assertThat(Property.between(r, Long.MAX_VALUE - 2, Long.MAX_VALUE))
                    .isGreaterThanOrEqualTo(Long.MAX_VALUE - 2);
            assertThat(Property.between(r, Long.MIN_VALUE, Long.MIN_VALUE + 2))
                    .isLessThanOrEqualTo(Long.MIN_VALUE + 2);
        }
        assertThatThrownBy(() -> Property.between(r, 2, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
