package io.tierlog.common.testing;

import java.util.Random;
import java.util.SplittableRandom;

/**
 * Seeded, reproducible randomized tests ("properties") on plain JUnit 5: a check runs a number of
 * tries, each with its own {@link Random} seeded from a per-try seed. Inputs are drawn in the check
 * with plain {@code Random} calls.
 *
 * <p>Seeds: try 1 uses the base seed, every later try the SplitMix64 successor of the previous
 * try's seed. The base seed is random for each run, or fixed with {@code
 * -Dtierlog.property.seed=<long>}. A failing try is reported as an {@link AssertionError} naming
 * the try, its seed and the command-line flags that rerun exactly that input as try 1 (the original
 * failure is the cause). The number of tries is the test's own, or {@code
 * -Dtierlog.property.tries=<n>} for every property of the run (scale up locally, or 1 to
 * reproduce). There is no shrinking: the seed is the reproduction.
 *
 * <p>Thread-safe: stateless; each try gets its own {@code Random}.
 */
public final class Property {
    /** System property: number of tries of every property (overrides each test's own count). */
    public static final String TRIES_PROPERTY = "tierlog.property.tries";

    /** System property: base seed (the seed of try 1), to reproduce a reported failure. */
    public static final String SEED_PROPERTY = "tierlog.property.seed";

    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    /** One try of a property; draws its inputs from {@code random}. */
    @FunctionalInterface
    public interface Check {
        void run(Random random) throws Exception;
    }

    private Property() {}

    /**
     * Runs {@code check} {@code defaultTries} times (or {@value #TRIES_PROPERTY} times), starting
     * from a random base seed (or {@value #SEED_PROPERTY}).
     *
     * @throws AssertionError naming the failing try and its seed, caused by the original failure
     */
    public static void forAll(int defaultTries, Check check) {
        run(baseSeed(), tries(defaultTries), check);
    }

    /** Runs {@code check} {@code tries} times from the given base seed; no system properties. */
    public static void run(long baseSeed, int tries, Check check) {
        if (tries < 1) {
            throw new IllegalArgumentException("tries must be at least 1, got " + tries);
        }
        long seed = baseSeed;
        for (int i = 1; i <= tries; i++) {
            try {
                check.run(new Random(seed));
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                throw new AssertionError(failureMessage(i, tries, seed, baseSeed, e), e);
            }
            seed = nextSeed(seed);
        }
    }

    /** The seed of the try after the one seeded with {@code seed} (SplitMix64). */
    public static long nextSeed(long seed) {
        long z = seed + GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * A uniform int in {@code [min, max]}, except that one draw in eight is an edge ({@code min},
     * {@code min + 1}, {@code max - 1} or {@code max}), where off-by-one bugs live.
     */
    public static int between(Random random, int min, int max) {
        return (int) between(random, (long) min, max);
    }

    /** As {@link #between(Random, int, int)}, for longs. */
    public static long between(Random random, long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("min " + min + " > max " + max);
        }
        if (random.nextInt(8) == 0) {
            return switch (random.nextInt(4)) {
                case 0 -> min;
                case 1 -> min < max ? min + 1 : min;
                case 2 -> min < max ? max - 1 : max;
                default -> max;
            };
        }
        if (max < Long.MAX_VALUE) {
            return random.nextLong(min, max + 1);
        }
        return min > Long.MIN_VALUE ? random.nextLong(min - 1, max) + 1 : random.nextLong();
    }

    private static String failureMessage(
            int attempt, int tries, long seed, long baseSeed, Throwable cause) {
        return "Property failed on try "
                + attempt
                + " of "
                + tries
                + " with seed "
                + seed
                + " (base seed "
                + baseSeed
                + "). Reproduce with: -Dtest="
                + caller()
                + " -D"
                + SEED_PROPERTY
                + "="
                + seed
                + " -D"
                + TRIES_PROPERTY
                + "=1\nCause: "
                + cause;
    }

    /**
     * {@code SimpleClassName#method} of the test method: the outermost frame below the reflective
     * call that JUnit made, leaving out lambdas.
     */
    private static String caller() {
        return StackWalker.getInstance(StackWalker.Option.SHOW_REFLECT_FRAMES)
                .walk(
                        frames ->
                                frames.takeWhile(f -> !isReflection(f.getClassName()))
                                        .filter(f -> !f.getMethodName().startsWith("lambda$"))
                                        .reduce((inner, outer) -> outer))
                .map(f -> simpleName(f.getClassName()) + "#" + f.getMethodName())
                .orElse("<test>");
    }

    private static boolean isReflection(String className) {
        return className.startsWith("java.lang.reflect.")
                || className.startsWith("jdk.internal.reflect.");
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static long baseSeed() {
        String s = System.getProperty(SEED_PROPERTY);
        if (s == null || s.isBlank()) {
            return new SplittableRandom().nextLong();
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    SEED_PROPERTY + " must be a decimal long, got '" + s + "'", e);
        }
    }

    private static int tries(int defaultTries) {
        String s = System.getProperty(TRIES_PROPERTY);
        if (s == null || s.isBlank()) {
            return defaultTries;
        }
        try {
            int n = Integer.parseInt(s.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(
                TRIES_PROPERTY + " must be a positive int, got '" + s + "'");
    }
}
