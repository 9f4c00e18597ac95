package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An embedder of the engine does not inherit the front end's libraries: the engine's class path
 * (its dependencies and the test ones, none of which brings them) has no CLI, progress-bar or Netty
 * classes. Fails when a module below the engine declares one of them again.
 */
class LeanClassPathTest {
    @Test
    void theEnginesDependenciesHaveNoCliProgressBarOrNettyClasses() {
        for (String frontEndClass :
                List.of(
                        "picocli.CommandLine",
                        "me.tongfei.progressbar.ProgressBar",
                        "io.netty.channel.Channel",
                        "io.netty.buffer.ByteBuf")) {
            assertThat(onClassPath(frontEndClass)).as(frontEndClass).isFalse();
        }
        assertThat(onClassPath("org.apache.kafka.common.TopicPartition")).isTrue();
    }

    private static boolean onClassPath(String name) {
        try {
            Class.forName(name, false, LeanClassPathTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
