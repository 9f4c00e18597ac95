package io.tierlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/tierlog}'s staleness check, run by bash on a copy of the launcher in a fake checkout
 * whose {@code mvn} and {@code java} are stubs that record their calls: it builds on the first run,
 * after any main source or pom changed (also a deleted file), on {@code TIERLOG_REBUILD=1}, never
 * on {@code TIERLOG_REBUILD=0}; builds quietly without colour; and a failed build is one line, exit
 * 3, and is retried next time.
 */
class LauncherStalenessTest {
    @TempDir Path repo;
    Path mvnCalls;
    Path javaCalls;

    @BeforeEach
    void fakeCheckout() throws IOException {
        Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("bin/tierlog");
        assumeTrue(Files.isRegularFile(launcher), "bin/tierlog next to the server module");
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "bash");
        Files.createDirectories(repo.resolve("bin"));
        Files.copy(launcher, repo.resolve("bin/tierlog"));
        write("pom.xml", "<project/>\n");
        write("server/pom.xml", "<project/>\n");
        write("common/src/main/java/A.java", "class A {}\n");
        write("common/src/test/java/ATest.java", "class ATest {}\n");
        mvnCalls = repo.resolve("mvn-calls");
        javaCalls = repo.resolve("java-calls");
        // The stub build makes what a real one makes, and fails when asked to.
        stub(
                "stubs/mvn",
                "echo \"$* | MAVEN_OPTS=$MAVEN_OPTS\" >> '"
                        + mvnCalls
                        + "'\n"
                        + "[ -f '"
                        + repo.resolve("fail-build")
                        + "' ] && { echo 'BUILD FAILURE' >&2; exit 1; }\n"
                        + "mkdir -p server/target/classes server/target/lib\n");
        stub("jdk/bin/java", "echo \"$*\" >> '" + javaCalls + "'\n");
    }

    private void write(String path, String content) throws IOException {
        Files.createDirectories(repo.resolve(path).getParent());
        Files.writeString(repo.resolve(path), content);
    }

    private void stub(String path, String body) throws IOException {
        Path f = repo.resolve(path);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "#!/bin/bash\n" + body);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** One launcher run: exit code, stderr, and whether it built. */
    record Run(int exit, String err, boolean built) {}

    private Run launch(Map<String, String> env) throws Exception {
        long before = Files.exists(mvnCalls) ? Files.readAllLines(mvnCalls).size() : 0;
        ProcessBuilder pb =
                new ProcessBuilder(
                        "/bin/bash", repo.resolve("bin/tierlog").toString(), "--version");
        pb.environment().remove("TIERLOG_REBUILD");
        pb.environment().remove("MAVEN_OPTS");
        pb.environment().put("PATH", repo.resolve("stubs") + ":/usr/bin:/bin");
        pb.environment().put("JAVA_HOME", repo.resolve("jdk").toString());
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        long after = Files.exists(mvnCalls) ? Files.readAllLines(mvnCalls).size() : 0;
        return new Run(p.exitValue(), err, after > before);
    }

    private Run launch() throws Exception {
        return launch(Map.of());
    }

    /** Makes every file of the fake checkout look older than the last build. */
    private void ageEverything() throws IOException {
        FileTime old = FileTime.from(Instant.now().minusSeconds(3600));
        FileTime stamp = FileTime.from(Instant.now().minusSeconds(60));
        try (var files = Files.walk(repo)) {
            for (Path f : files.toList()) {
                Files.setLastModifiedTime(f, old);
            }
        }
        Files.setLastModifiedTime(repo.resolve("server/target/.tierlog-build-stamp"), stamp);
    }

    @Test
    void buildsOnTheFirstRunQuietlyAndWithoutColourThenRunsTheCli() throws Exception {
        Run first = launch();
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.built()).isTrue();
        assertThat(first.err()).contains("tierlog: building (first run");
        String call = Files.readAllLines(mvnCalls).get(0);
        assertThat(call)
                .contains("-B", "-q", "--no-transfer-progress", "-Dstyle.color=never")
                .contains("-pl server -am package")
                .contains("MAVEN_OPTS= -Djansi.noreset=true");
        assertThat(repo.resolve("server/target/.tierlog-build-stamp")).exists();
        assertThat(Files.readAllLines(javaCalls).get(0))
                .endsWith("io.tierlog.server.cli.TierlogCli --version");
        ageEverything();
        Run second = launch();
        assertThat(second.built()).as(second.err()).isFalse();
        assertThat(second.err()).isEmpty();
        assertThat(Files.readAllLines(javaCalls)).hasSize(2);
    }

    @Test
    void rebuildsWhenAMainSourceOrAPomIsNewerThanTheLastBuild() throws Exception {
        launch();
        for (String changed : List.of("common/src/main/java/A.java", "server/pom.xml")) {
            ageEverything();
            Files.setLastModifiedTime(repo.resolve(changed), FileTime.from(Instant.now()));
            Run r = launch();
            assertThat(r.built()).as(changed).isTrue();
            assertThat(r.err()).contains("sources changed since the last build: " + changed);
            assertThat(launch().built()).as("built once for " + changed).isFalse();
        }
        // a test source is not part of what the launcher runs
        ageEverything();
        Files.setLastModifiedTime(
                repo.resolve("common/src/test/java/ATest.java"), FileTime.from(Instant.now()));
        assertThat(launch().built()).isFalse();
    }

    @Test
    void rebuildsWhenAMainSourceIsDeleted() throws Exception {
        write("common/src/main/java/B.java", "class B {}\n");
        launch();
        ageEverything();
        Files.delete(repo.resolve("common/src/main/java/B.java")); // its folder's mtime moves
        assertThat(launch().built()).isTrue();
    }

    @Test
    void tierlogRebuildForcesOrSuppressesTheBuild() throws Exception {
        launch();
        ageEverything();
        Run forced = launch(Map.of("TIERLOG_REBUILD", "1"));
        assertThat(forced.built()).isTrue();
        assertThat(forced.err()).contains("TIERLOG_REBUILD is set");
        ageEverything();
        Files.setLastModifiedTime(
                repo.resolve("common/src/main/java/A.java"), FileTime.from(Instant.now()));
        Run suppressed = launch(Map.of("TIERLOG_REBUILD", "0"));
        assertThat(suppressed.built()).isFalse();
        assertThat(suppressed.exit()).isZero();
    }

    @Test
    void aFailedBuildIsOneLineExit3AndIsRetriedOnTheNextRun() throws Exception {
        Files.writeString(repo.resolve("fail-build"), "");
        Run failed = launch();
        assertThat(failed.exit()).isEqualTo(3);
        assertThat(failed.err().lines().filter(l -> l.startsWith("tierlog: build failed")))
                .hasSize(1);
        assertThat(repo.resolve("server/target/.tierlog-build-stamp")).doesNotExist();
        assertThat(javaCalls).doesNotExist();
        Files.delete(repo.resolve("fail-build"));
        Run retried = launch();
        assertThat(retried.built()).isTrue();
        assertThat(retried.exit()).isZero();
    }

    @Test
    void everyEnvironmentVariableTheLauncherReadsAndEveryExitCodeIsInTheReadme() throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        String launcher = Files.readString(root.resolve("bin/tierlog"));
        String readme = Files.readString(root.resolve("README.md"));
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\$\\{?(TIERLOG_[A-Z_]+|JAVA_HOME)")
                        .matcher(launcher);
        java.util.Set<String> vars = new java.util.TreeSet<>();
        while (m.find()) {
            vars.add(m.group(1));
        }
        assertThat(vars).contains("TIERLOG_REBUILD", "JAVA_HOME");
        for (String v : vars) {
            assertThat(readme).as("README documents %s", v).contains("| `" + v + "` |");
        }
        for (int code :
                new int[] {
                    CliErrors.OK, CliErrors.FOUND_PROBLEMS, CliErrors.USAGE, CliErrors.FAILED
                }) {
            assertThat(readme)
                    .as("README documents exit code %d", code)
                    .contains("| " + code + " |");
        }
    }
}
