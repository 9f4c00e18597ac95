package io.tierlog.server.net;

import io.netty.channel.DefaultFileRegion;

/**
 * A {@link DefaultFileRegion} over a file channel that someone else owns (the hot tier's segment):
 * releasing the region does not close the channel, unlike its parent, but ends the pin that kept
 * the channel open while the region was queued and written. It stays a {@code DefaultFileRegion} so
 * the epoll transport sends it with native {@code sendfile}. Single use, as any region; not
 * thread-safe.
 */
final class SharedFileRegion extends DefaultFileRegion {
    private final ZeroCopyRecords.Pin pin;

    SharedFileRegion(ZeroCopyRecords.Pin pin, long position, long count) {
        super(pin.channel(), position, count);
        this.pin = pin;
    }

    @Override
    protected void deallocate() {
        // The segment owns the channel and closes it; the pin only kept it from being closed.
        pin.close();
    }
}
