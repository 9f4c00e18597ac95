package io.tierlog.server.net;

import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Records that live in a file and are sent with {@code sendfile}: {@link NettyWritable} writes them
 * as a Netty {@code FileRegion} of ({@link #pin()}'s channel, {@link #position()}, {@link
 * #sizeInBytes()}) instead of copying bytes. The pin keeps the channel open until the region is
 * released (written or discarded), although the hot tier closes idle segment files to bound its
 * descriptors. Immutable.
 */
public interface ZeroCopyRecords extends BaseRecords {
    /** A channel that stays open until the pin is closed (once). */
    interface Pin extends AutoCloseable {
        FileChannel channel();

        @Override
        void close();
    }

    /** Pins the file open, reopening it if it was closed while idle. */
    Pin pin() throws java.io.IOException;

    long position();

    @Override
    default RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("written by NettyWritable as a file region");
    }
}
