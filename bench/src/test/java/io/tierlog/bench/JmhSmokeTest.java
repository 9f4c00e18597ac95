package io.tierlog.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.bench.cold.CompactionBenchmark;
import io.tierlog.bench.contracts.SchemaValidationBenchmark;
import io.tierlog.bench.hot.AppendBenchmark;
import io.tierlog.bench.hot.ReadBenchmark;
import io.tierlog.bench.hot.RecompressBenchmark;
import io.tierlog.engine.SchemaGuardBenchmark;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Every JMH benchmark of the module runs once, briefly, in {@code mvn verify}, so a benchmark that
 * no longer runs (as the compaction benchmark's bare writer once did, unnoticed) fails the build:
 * in this JVM (no fork), no warm-up, one measurement iteration of 100 ms, the smallest parameters.
 * The scores are discarded: they measure nothing on a build machine. A benchmark class that is
 * missing from {@link #benchmarks()} fails {@link #everyBenchmarkClassHasASmokeRun()}.
 */
class JmhSmokeTest {
    /** Each benchmark class with the parameters that make it small. */
    static Stream<Arguments> benchmarks() {
        return Stream.of(
                Arguments.of(AppendBenchmark.class, Map.of("recordSize", "100")),
                Arguments.of(ReadBenchmark.class, Map.of("logBytes", Long.toString(4 << 20))),
                // every conversion: each codec pair is its own code path
                Arguments.of(RecompressBenchmark.class, Map.of()),
                Arguments.of(SchemaValidationBenchmark.class, Map.of("recordSize", "100")),
                Arguments.of(SchemaGuardBenchmark.class, Map.of("recordSize", "100")),
                Arguments.of(
                        CompactionBenchmark.class,
                        Map.of("recordBytes", "100", "sourceCodec", "none", "segmentMiB", "1")),
                Arguments.of(
                        io.tierlog.bench.cold.TypedOffloadBenchmark.class,
                        Map.of("segmentMiB", "1")),
                Arguments.of(
                        io.tierlog.bench.cold.DuckDbTypedAggregateBenchmark.class,
                        Map.of("records", "2000")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("benchmarks")
    void benchmarkRunsOnce(Class<?> benchmark, Map<String, String> params) throws RunnerException {
        // JMH allows one run per machine (a file lock in the temp dir); a smoke run measures
        // nothing and must not wait for, or disturb, a real run of someone else's.
        System.setProperty("jmh.ignoreLock", "true");
        ChainedOptionsBuilder options =
                new OptionsBuilder()
                        .include(java.util.regex.Pattern.quote(benchmark.getName()) + "\\.")
                        .forks(0)
                        .warmupIterations(0)
                        .measurementIterations(1)
                        .measurementTime(TimeValue.milliseconds(100))
                        .timeout(TimeValue.seconds(60))
                        .shouldFailOnError(true)
                        .verbosity(VerboseMode.SILENT);
        System.setProperty(
                "tierlog.bench.dir", Path.of("target", "jmh-smoke").toAbsolutePath().toString());
        params.forEach(options::param);
        Collection<RunResult> results = new Runner(options.build()).run();

        Set<String> ran =
                results.stream()
                        .map(r -> r.getParams().getBenchmark())
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(ran).as("benchmarks that ran").isEqualTo(methodsOf(benchmark));
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getSampleCount())
                    .as(r.getParams().getBenchmark() + " " + r.getParams())
                    .isPositive();
        }
    }

    @Test
    void everyBenchmarkClassHasASmokeRun() {
        Set<String> covered =
                benchmarks()
                        .map(a -> ((Class<?>) a.get()[0]).getName())
                        .collect(Collectors.toCollection(TreeSet::new));
        Set<String> all =
                entries().stream()
                        .map(BenchmarkListEntry::getUserClassQName)
                        .collect(Collectors.toCollection(TreeSet::new));
        assertThat(all).as("benchmark classes in META-INF/BenchmarkList").isNotEmpty();
        assertThat(covered).isEqualTo(all);
    }

    private static Set<String> methodsOf(Class<?> benchmark) {
        return entries().stream()
                .filter(e -> e.getUserClassQName().equals(benchmark.getName()))
                .map(BenchmarkListEntry::getUsername)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<BenchmarkListEntry> entries() {
        return BenchmarkList.defaultList()
                .getAll(
                        OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT),
                        List.of());
    }
}
