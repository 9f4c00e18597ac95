package io.tierlog.server.net;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Several handlers of one connection pause reading for their own reasons (a request pending with a
 * full queue, a peer that does not read its responses, no request memory); reading resumes only
 * when none holds it paused, so one handler's resume cannot undo another's pause. Call only from
 * the channel's event loop (not thread-safe otherwise).
 */
final class ReadGate {
    /** Why reading is paused; each bit is set and cleared by one handler. */
    public enum Reason {
        /** Too many requests queued behind a pending one ({@link KafkaChannelHandler}). */
        BACKLOG,
        /** The outbound buffer is above its high water mark. */
        UNWRITABLE,
        /** The request memory pool cannot hold the next request ({@link KafkaFrameDecoder}). */
        MEMORY
    }

    private static final AttributeKey<int[]> PAUSED = AttributeKey.valueOf("tierlog.readGate");

    private ReadGate() {}

    /** Pauses ({@code paused} true) or releases this reason's hold on reading. */
    public static void set(Channel ch, Reason reason, boolean paused) {
        int[] bits = ch.attr(PAUSED).setIfAbsent(new int[1]);
        if (bits == null) {
            bits = ch.attr(PAUSED).get();
        }
        int bit = 1 << reason.ordinal();
        bits[0] = paused ? bits[0] | bit : bits[0] & ~bit;
        boolean read = bits[0] == 0;
        if (ch.config().isAutoRead() != read) {
            ch.config().setAutoRead(read);
        }
    }

    /** True while {@code reason} holds reading paused. */
    public static boolean isPaused(Channel ch, Reason reason) {
        int[] bits = ch.attr(PAUSED).get();
        return bits != null && (bits[0] & (1 << reason.ordinal())) != 0;
    }
}
