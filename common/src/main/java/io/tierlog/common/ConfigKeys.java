package io.tierlog.common;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Checks the keys of settings against every declared {@link ConfigOption}, so that a typo fails at
 * startup instead of silently falling back to a default ({@code --set data.dirr=/x} serving from
 * {@code ./data}): a key no module declares is an error naming the closest declared key; a key of
 * Apache Kafka that tierlog does not implement ({@link KafkaConfigKeys}) is accepted with a warning
 * that it has no effect here.
 *
 * <p>{@link Config#validate} checks only the values of one module's options (each module sees the
 * whole config and ignores the others' keys); this check needs the options of all modules, so it
 * runs where they are gathered (the CLI).
 *
 * <p>Stateless; thread-safe.
 */
public final class ConfigKeys {
    private ConfigKeys() {}

    /** What a check found: keys that are errors (unknown) and keys that only warn (Kafka's). */
    public record Findings(List<String> errors, List<String> warnings) {
        public Findings {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }

        /** Whether nothing was found. */
        public boolean clean() {
            return errors.isEmpty() && warnings.isEmpty();
        }
    }

    /**
     * Checks every key of {@code config} against {@code declared}; one message per finding, sorted
     * by key.
     */
    public static Findings check(Config config, Collection<? extends ConfigOption<?>> declared) {
        Set<String> known = new TreeSet<>();
        for (ConfigOption<?> o : declared) {
            known.add(o.key());
        }
        List<String> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (String key : new TreeSet<>(config.asMap().keySet())) {
            if (known.contains(key)) {
                continue;
            }
            if (KafkaConfigKeys.contains(key)) {
                warnings.add(
                        "'"
                                + key
                                + "' is an Apache Kafka setting that has no effect in tierlog"
                                + KafkaConfigKeys.tierlogEquivalent(key)
                                        .filter(known::contains)
                                        .map(e -> " (tierlog's setting for this is '" + e + "')")
                                        .orElse(""));
                continue;
            }
            errors.add(
                    "unknown setting '"
                            + key
                            + "'"
                            + closest(key, known).map(c -> ": did you mean '" + c + "'?").orElse("")
                            + " (`tierlog config-docs` lists every setting)");
        }
        return new Findings(errors, warnings);
    }

    /**
     * As {@link #check}, failing on unknown keys and passing each warning to {@code warn}.
     *
     * @param what prefixes every message, e.g. {@code "--set"} or the config file's name; may be
     *     empty
     * @throws ConfigException naming every unknown key, each with its closest declared key
     */
    public static void requireKnown(
            Config config,
            Collection<? extends ConfigOption<?>> declared,
            String what,
            Consumer<String> warn) {
        Findings f = check(config, declared);
        String prefix = what.isEmpty() ? "" : what + ": ";
        f.warnings().forEach(w -> warn.accept(prefix + w));
        if (!f.errors().isEmpty()) {
            throw new ConfigException(prefix + String.join("; ", f.errors()));
        }
    }

    /**
     * The candidate nearest to {@code key} by edit distance (insertions, deletions, substitutions
     * and transpositions of adjacent characters each cost 1); ties go to the alphabetically first.
     * Empty only when there are no candidates.
     */
    public static Optional<String> closest(String key, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : new TreeSet<>(candidates)) {
            int d = distance(key, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Optimal-string-alignment distance between {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v =
                        Math.min(
                                Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1
                        && j > 1
                        && a.charAt(i - 1) == b.charAt(j - 2)
                        && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
