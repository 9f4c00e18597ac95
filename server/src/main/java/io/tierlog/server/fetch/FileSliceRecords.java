package io.tierlog.server.fetch;

import io.tierlog.engine.FileRegion;
import io.tierlog.server.net.ZeroCopyRecords;
import java.nio.channels.FileChannel;

/**
 * A hot-tier {@link FileRegion} as Kafka {@code BaseRecords} that the response writer sends as a
 * file region (sendfile). Immutable.
 */
final class FileSliceRecords implements ZeroCopyRecords {
    private final FileRegion slice;

    public FileSliceRecords(FileRegion slice) {
        this.slice = slice;
    }

    public FileRegion slice() {
        return slice;
    }

    @Override
    public Pin pin() throws java.io.IOException {
        FileRegion.Pin p = slice.pin();
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
