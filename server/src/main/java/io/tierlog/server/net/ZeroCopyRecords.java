package io.tierlog.server.net;

import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Records that live in a file and are sent with {@code sendfile}: {@link NettyWritable} writes them
 * as a Netty {@code FileRegion} of ({@link #channel()}, {@link #position()}, {@link
 * #sizeInBytes()}) instead of copying bytes. Implementations must keep the channel open until the
 * region is written (the hot tier delays closing deleted segments). Immutable.
 */
public interface ZeroCopyRecords extends BaseRecords {
    FileChannel channel();

    long position();

    @Override
    default RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("written by NettyWritable as a file region");
    }
}
