package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Streaming batches out of a file range: whole batches only, bad framing is an error. */
class BatchStreamTest {
    @TempDir Path dir;

    static ByteBuffer batch(long base, int n) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            rs[i] = new SimpleRecord(1000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(base, Compression.NONE, rs).buffer();
    }

    Path write(ByteBuffer... parts) throws IOException {
        Path f = dir.resolve("00000000000000000000.log");
        try (FileChannel ch =
                FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (ByteBuffer b : parts) {
                ch.write(b.duplicate());
            }
        }
        return f;
    }

    @Test
    void returnsEveryWholeBatchInOrderAndStopsAtATruncatedTail() throws IOException {
        ByteBuffer a = batch(0, 3);
        ByteBuffer b = batch(3, 2);
        ByteBuffer torn = batch(5, 4);
        torn.limit(torn.limit() - 7);
        Path f = write(a, b, torn);
        try (FileChannel ch = FileChannel.open(f);
                BatchStream s = new BatchStream(ch, 0, Files.size(f), null)) {
            RecordBatch first = s.next();
            RecordBatch second = s.next();
            assertThat(first.baseOffset()).isZero();
            assertThat(first.lastOffset()).isEqualTo(2);
            assertThat(second.baseOffset()).isEqualTo(3);
            assertThat(s.next()).isNull();
        }
    }

    @Test
    void aRangeStartingInsideTheFileReadsOnlyThatRange() throws IOException {
        ByteBuffer a = batch(0, 3);
        ByteBuffer b = batch(3, 2);
        Path f = write(a, b);
        try (FileChannel ch = FileChannel.open(f);
                BatchStream s = new BatchStream(ch, a.remaining(), b.remaining(), null)) {
            assertThat(s.next().baseOffset()).isEqualTo(3);
            assertThat(s.next()).isNull();
            assertThat(s.remaining()).isZero();
        }
    }

    @Test
    void aNegativeBatchLengthIsReportedWithItsPosition() throws IOException {
        ByteBuffer bad = ByteBuffer.allocate(64);
        bad.putLong(0, 42L).putInt(8, -5);
        Path f = write(bad);
        try (FileChannel ch = FileChannel.open(f);
                BatchStream s = new BatchStream(ch, 0, 64, null)) {
            assertThatThrownBy(s::next)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("invalid batch length -5 at position 0");
        }
    }

    @Test
    void closingReleasesWhatTheStreamOwns() throws IOException {
        Path f = write(batch(0, 1));
        FileChannel ch = FileChannel.open(f);
        new BatchStream(ch, 0, Files.size(f), ch).close();
        assertThat(ch.isOpen()).isFalse();
    }
}
