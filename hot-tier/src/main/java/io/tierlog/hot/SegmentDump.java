package io.tierlog.hot;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/** kafka-dump-log-like text for segment files. Stateless. */
public final class SegmentDump {
    private SegmentDump() {}

    public static void dump(Path file, PrintStream out, boolean deep) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }
}
