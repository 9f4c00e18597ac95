package io.tierlog.server.net;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A {@link DefaultFileRegion} over a file channel that someone else owns (the hot tier's segment):
 * releasing the region does not close the channel, unlike its parent. It stays a {@code
 * DefaultFileRegion} so the epoll transport sends it with native {@code sendfile}. Single use, as
 * any region; not thread-safe.
 */
final class SharedFileRegion extends DefaultFileRegion {
    SharedFileRegion(FileChannel channel, long position, long count) {
        super(channel, position, count);
    }

    @Override
    protected void deallocate() {
        // The segment owns the channel and closes it (after file.delete.delay.ms when deleted).
    }
}
