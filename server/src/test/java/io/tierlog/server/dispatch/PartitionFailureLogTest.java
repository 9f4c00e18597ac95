package io.tierlog.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A failing disk fails every request: the handlers' ERROR lines with a stack are one per partition
 * and exception class a minute, then a count of those not logged (through slf4j-simple to a
 * captured stderr).
 */
class PartitionFailureLogTest {
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);

    private final MockTime time = new MockTime(1_000_000);
    private final PartitionFailureLog failures =
            new PartitionFailureLog(LoggerFactory.getLogger(PartitionFailureLogTest.class), time);
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream original;

    @BeforeEach
    void capture() {
        original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(original);
        System.err.print(captured.toString(StandardCharsets.UTF_8));
    }

    private List<String> lines(String containing) {
        return Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
                .filter(l -> l.contains(containing))
                .toList();
    }

    @Test
    void aRepeatedFailureOfOnePartitionLogsOneStackAMinuteThenCountsTheRest() {
        for (int i = 0; i < 100; i++) {
            failures.failed("append", T0, new IOException("No space left on device"));
        }
        assertThat(lines("ERROR")).singleElement().asString().contains("append of t-0 failed");
        assertThat(lines("java.io.IOException: No space left on device")).hasSize(1);
        assertThat(lines("\tat ")).as("the first line has its stack").isNotEmpty();

        time.sleep(PartitionFailureLog.INTERVAL_MS - 1);
        assertThat(failures.failed("append", T0, new IOException("still full"))).isFalse();
        time.sleep(1);
        assertThat(failures.failed("append", T0, new IOException("still full"))).isTrue();
        assertThat(lines("ERROR"))
                .hasSize(2)
                .last()
                .asString()
                .contains("append of t-0 failed (100 more IOException on it in the last minute");
        assertThat(lines("java.io.IOException: still full")).hasSize(1);
    }

    @Test
    void anotherPartitionOrExceptionClassIsLoggedAtOnce() {
        failures.failed("fetch at 5", T0, new IOException("bad sector"));
        assertThat(failures.failed("fetch at 5", T1, new IOException("bad sector"))).isTrue();
        assertThat(failures.failed("fetch at 7", T0, new IllegalStateException("bug"))).isTrue();
        assertThat(failures.failed("fetch at 9", T0, new IOException("bad sector"))).isFalse();
        assertThat(lines("ERROR"))
                .containsExactly(
                        lines("fetch at 5 of t-0 failed").get(0),
                        lines("fetch at 5 of t-1 failed").get(0),
                        lines("fetch at 7 of t-0 failed").get(0));
    }
}
