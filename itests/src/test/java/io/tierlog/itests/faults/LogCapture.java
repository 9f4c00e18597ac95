package io.tierlog.itests.faults;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Captures what slf4j-simple (the tests' logging backend, which writes each line to the current
 * {@code System.err}) logs while it is open, still passing it through. Thread-safe.
 */
public final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private LogCapture() {
        OutputStream tee =
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        original.write(b);
                        synchronized (captured) {
                            captured.write(b);
                        }
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        original.write(b, off, len);
                        synchronized (captured) {
                            captured.write(b, off, len);
                        }
                    }
                };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    public static LogCapture start() {
        return new LogCapture();
    }

    /** Captured lines containing every one of {@code parts}. */
    public List<String> lines(String... parts) {
        String all;
        synchronized (captured) {
            all = captured.toString(StandardCharsets.UTF_8);
        }
        return Arrays.stream(all.split("\n"))
                .filter(l -> Arrays.stream(parts).allMatch(l::contains))
                .toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
