package io.tierlog.server.fetch;

import io.tierlog.hot.FileSlice;
import io.tierlog.server.net.ZeroCopyRecords;
import java.nio.channels.FileChannel;

/**
 * A hot-tier {@link FileSlice} as Kafka {@code BaseRecords} that the response writer sends as a
 * file region (sendfile). Immutable.
 */
final class FileSliceRecords implements ZeroCopyRecords {
    private final FileSlice slice;

    public FileSliceRecords(FileSlice slice) {
        this.slice = slice;
    }

    public FileSlice slice() {
        return slice;
    }

    @Override
    public Pin pin() throws java.io.IOException {
        FileSlice.Pin p = slice.pin();
        return new Pin() {
            @Override
            public FileChannel channel() {
                return p.channel();
            }

            @Override
            public void close() {
                p.close();
            }
        };
    }

    @Override
    public long position() {
        return slice.position();
    }

    @Override
    public int sizeInBytes() {
        return slice.sizeInBytes();
    }

    @Override
    public String toString() {
        return "FileSliceRecords(" + slice + ")";
    }
}
