package io.tierlog.registry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.testing.Property;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireFormatTest {

    @Test
    void avroHeaderIsMagicThenBigEndianId() {
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 2, 42});
        WireFormat.Header h = WireFormat.parse(buf, false);
        assertEquals(258, h.schemaId());
        assertEquals(5, h.length());
        assertEquals(List.of(), h.messageIndexes());
        assertEquals(258, WireFormat.schemaIdOrMinusOne(buf));
        assertEquals(0, buf.position(), "parsing never moves the buffer");
    }

    @Test
    void readsFromTheBufferPositionNotIndexZero() {
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {9, 9, 0, 0, 0, 0, 7, 1});
        buf.position(2);
        assertEquals(7, WireFormat.parse(buf, false).schemaId());
        assertEquals(7, WireFormat.schemaIdOrMinusOne(buf));
    }

    @Test
    void singleZeroByteMeansFirstMessage() {
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 5, 0, 8, 1});
        WireFormat.Header h = WireFormat.parse(buf, true);
        assertEquals(List.of(0), h.messageIndexes());
        assertEquals(6, h.length());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 5, 0}, WireFormat.header(5, List.of(0)));
    }

    @Test
    void indexesAreZigzagCountThenZigzagIndexes() {
        // [1, 0]: count 2 -> zigzag 4, 1 -> 2, 0 -> 0 (as Confluent's MessageIndexes writes them)
        ByteBuffer buf = ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 3, 4, 2, 0, 99});
        WireFormat.Header h = WireFormat.parse(buf, true);
        assertEquals(List.of(1, 0), h.messageIndexes());
        assertEquals(8, h.length());
        // a multi-byte varint: index 100 -> zigzag 200 = 0xC8 0x01
        WireFormat.Header big =
                WireFormat.parse(
                        ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 3, 2, (byte) 0xC8, 1}), true);
        assertEquals(List.of(100), big.messageIndexes());
    }

    @Test
    void missingOrWrongMagicIsNoHeader() {
        assertFalse(WireFormat.hasHeader(ByteBuffer.wrap(new byte[] {0, 0, 0, 1})));
        assertFalse(WireFormat.hasHeader(ByteBuffer.wrap(new byte[] {'{', 0, 0, 0, 1})));
        assertFalse(WireFormat.hasHeader(ByteBuffer.allocate(0)));
        assertEquals(-1, WireFormat.schemaIdOrMinusOne(ByteBuffer.wrap("{\"a\":1}".getBytes())));
        var e =
                assertThrows(
                        WireFormat.MalformedHeaderException.class,
                        () -> WireFormat.parse(ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 1}), false));
        assertTrue(e.getMessage().contains("magic byte is 1"), e.getMessage());
        assertThrows(
                WireFormat.MalformedHeaderException.class,
                () -> WireFormat.parse(ByteBuffer.wrap(new byte[] {0, 0, 0}), true));
    }

    @Test
    void corruptIndexesAreRefusedNotMisread() {
        // truncated: count 2 but one index
        assertThrows(
                WireFormat.MalformedHeaderException.class,
                () -> WireFormat.parse(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 1, 4, 2}), true));
        // negative count (zigzag 1 = -1)
        assertThrows(
                WireFormat.MalformedHeaderException.class,
                () -> WireFormat.parse(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 1, 1}), true));
        // no indexes at all after the id
        assertThrows(
                WireFormat.MalformedHeaderException.class,
                () -> WireFormat.parse(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 1}), true));
        // varint longer than 5 bytes
        byte[] longVarint = {
            0, 0, 0, 0, 1, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0
        };
        assertThrows(
                WireFormat.MalformedHeaderException.class,
                () -> WireFormat.parse(ByteBuffer.wrap(longVarint), true));
    }

    @Test
    void writtenHeadersParseBackToTheSameIdAndIndexes() {
        Property.forAll(
                500,
                random -> {
                    int id = random.nextInt();
                    int n = random.nextInt(6);
                    List<Integer> idx = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        idx.add(random.nextBoolean() ? random.nextInt(4) : random.nextInt(1 << 30));
                    }
                    boolean proto = random.nextBoolean();
                    byte[] header = WireFormat.header(id, proto ? idx : null);
                    byte[] withPayload = new byte[header.length + 3];
                    System.arraycopy(header, 0, withPayload, 0, header.length);
                    WireFormat.Header h = WireFormat.parse(ByteBuffer.wrap(withPayload), proto);
                    assertEquals(id, h.schemaId());
                    assertEquals(header.length, h.length());
                    List<Integer> expected = !proto ? List.of() : idx.isEmpty() ? List.of(0) : idx;
                    assertEquals(expected, h.messageIndexes());
                });
    }
}
