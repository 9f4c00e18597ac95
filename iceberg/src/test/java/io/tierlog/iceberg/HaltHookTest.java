package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The kill points halt a child JVM with 137 at the named point, after the skipped hits. */
class HaltHookTest {

    /** Child: hits "other" once and "before-commit" three times, printing each pass. */
    public static void main(String[] args) {
        HaltHook.at("other");
        for (int i = 0; i < 3; i++) {
            HaltHook.at("before-commit");
            System.out.println("passed " + i);
        }
        System.exit(0);
    }

    private static Result run(String at, String skip) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb =
                new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-Dtierlog.iceberg.halt.at=" + at,
                        "-Dtierlog.iceberg.halt.skip=" + skip,
                        HaltHookTest.class.getName());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }

    private record Result(int code, String out) {}

    @Test
    void aNamedPointHaltsAfterTheSkippedHitsAndOtherPointsPass() throws Exception {
        Result r = run("after-commit, before-commit", "2");
        assertThat(r.code()).isEqualTo(137);
        assertThat(r.out()).contains("passed 1").doesNotContain("passed 2");
        Result none = run("after-commit", "0");
        assertThat(none.code()).isZero();
        assertThat(none.out()).contains("passed 2");
        assertThat(List.of(none.code())).containsExactly(0);
    }
}
