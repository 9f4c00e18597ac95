package io.tierlog.engine.archviolation;

import io.netty.buffer.ByteBuf;

/** Deliberate violation (ModuleRulesBiteTest): Netty below the server. */
final class EngineHoldsNettyBuffer {
    private EngineHoldsNettyBuffer() {}

    static int size(ByteBuf buf) {
        return buf.readableBytes();
    }
}
