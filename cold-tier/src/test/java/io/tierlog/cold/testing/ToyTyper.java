package io.tierlog.cold.testing;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A hand-written typer for cold-tier tests, independent of the schema registry: payloads carry the
 * Confluent header (magic 0, 4-byte big-endian schema id), then UTF-8 text {@code
 * name|amount|tag,tag|key=n;key=n|city}; an empty name, amount or city is null, empty tags or
 * attributes are an empty list or map. Ids 1 and 2 are "registered" under the subject, 3 is
 * registered elsewhere ({@code not-in-subject}), others unknown. A payload is rebuildable when
 * re-encoding its row gives its exact bytes (it is not for an amount such as {@code 007}). The
 * {@link #rebuilder()} re-encodes. Stateless, so thread-safe.
 */
public final class ToyTyper implements ValueTyper {
    public static final int BASE = 1_000_000;

    public static final TypedType.Struct STRUCT =
            new TypedType.Struct(
                    List.of(
                            new TypedType.Field(
                                    BASE + 1, "name", prim(TypedType.Kind.STRING), true),
                            new TypedType.Field(
                                    BASE + 2, "amount", prim(TypedType.Kind.LONG), true),
                            new TypedType.Field(
                                    BASE + 3,
                                    "tags",
                                    new TypedType.ListOf(
                                            BASE + 4, prim(TypedType.Kind.STRING), true),
                                    true),
                            new TypedType.Field(
                                    BASE + 5,
                                    "attrs",
                                    new TypedType.MapOf(
                                            BASE + 6,
                                            prim(TypedType.Kind.STRING),
                                            BASE + 7,
                                            prim(TypedType.Kind.LONG),
                                            true),
                                    true),
                            new TypedType.Field(
                                    BASE + 8,
                                    "customer",
                                    new TypedType.Struct(
                                            List.of(
                                                    new TypedType.Field(
                                                            BASE + 9,
                                                            "city",
                                                            prim(TypedType.Kind.STRING),
                                                            true))),
                                    true)));

    private static TypedType prim(TypedType.Kind k) {
        return new TypedType.Primitive(k);
    }

    @Override
    public TypedType.Struct struct() {
        return STRUCT;
    }

    @Override
    public Typed type(ByteBuffer payload) {
        if (payload.remaining() < 5 || payload.get(payload.position()) != 0) {
            return Typed.failed(-1, "no-header", "no wire-format header");
        }
        int id = payload.getInt(payload.position() + 1);
        if (id == 3) {
            return Typed.failed(id, "not-in-subject", "schema id 3 is not registered here");
        }
        if (id != 1 && id != 2) {
            return Typed.failed(id, "unknown-id", "unknown schema id " + id);
        }
        byte[] all = new byte[payload.remaining()];
        payload.duplicate().get(all);
        String text = new String(all, 5, all.length - 5, StandardCharsets.UTF_8);
        String[] parts = text.split("\\|", -1);
        if (parts.length != 5) {
            return Typed.failed(id, "decode", "expected 5 parts, got " + parts.length);
        }
        try {
            Object[] row = new Object[5];
            row[0] = parts[0].isEmpty() ? null : parts[0];
            row[1] = parts[1].isEmpty() ? null : Long.parseLong(parts[1]);
            List<Object> tags = new ArrayList<>();
            if (!parts[2].isEmpty()) {
                tags.addAll(Arrays.asList(parts[2].split(",", -1)));
            }
            row[2] = tags;
            Map<Object, Object> attrs = new LinkedHashMap<>();
            if (!parts[3].isEmpty()) {
                for (String kv : parts[3].split(";", -1)) {
                    int eq = kv.indexOf('=');
                    attrs.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
            }
            row[3] = attrs;
            row[4] = parts[4].isEmpty() ? null : new Object[] {parts[4]};
            boolean exact = Arrays.equals(encode(id, row), all);
            return Typed.decoded(id, row, exact);
        } catch (RuntimeException e) {
            return Typed.failed(id, "decode", "cannot decode: " + e.getMessage());
        }
    }

    /** The payload of {@code row} under schema {@code id}. */
    public static byte[] encode(int id, Object[] row) {
        StringBuilder s = new StringBuilder();
        s.append(row[0] == null ? "" : row[0]).append('|');
        s.append(row[1] == null ? "" : row[1]).append('|');
        List<?> tags = (List<?>) row[2];
        if (tags != null) {
            for (int i = 0; i < tags.size(); i++) {
                s.append(i > 0 ? "," : "").append(tags.get(i));
            }
        }
        s.append('|');
        Map<?, ?> attrs = (Map<?, ?>) row[3];
        if (attrs != null) {
            int i = 0;
            for (Map.Entry<?, ?> e : attrs.entrySet()) {
                s.append(i++ > 0 ? ";" : "").append(e.getKey()).append('=').append(e.getValue());
            }
        }
        s.append('|');
        s.append(row[4] == null ? "" : ((Object[]) row[4])[0]);
        byte[] body = s.toString().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
    }

    /** Re-encodes rows; refuses ids other than 1 and 2 and structs other than {@link #STRUCT}. */
    public static ValueRebuilder rebuilder() {
        return (id, struct, row) -> {
            if ((id != 1 && id != 2) || !struct.equals(STRUCT)) {
                throw new IllegalStateException("cannot rebuild schema id " + id);
            }
            return encode(id, row);
        };
    }

    /**
     * A random payload: mostly canonical (rebuildable), some not ({@code 007}), some with an
     * unknown or foreign id, no header, or undecodable text.
     */
    public static byte[] randomPayload(Random rnd) {
        int kind = rnd.nextInt(20);
        if (kind == 0) {
            return "plain text, no header".getBytes(StandardCharsets.UTF_8);
        }
        if (kind == 1) {
            return encode(7, new Object[] {"x", 1L, List.of(), Map.of(), null});
        }
        if (kind == 2) {
            return encode(3, new Object[] {"x", 1L, List.of(), Map.of(), null});
        }
        if (kind == 3) {
            // an amount that is no number
            return ByteBuffer.allocate(5 + 7)
                    .put((byte) 0)
                    .putInt(1)
                    .put("x|zz|||".getBytes(StandardCharsets.UTF_8))
                    .array();
        }
        int id = 1 + rnd.nextInt(2);
        Object[] row = new Object[5];
        row[0] = rnd.nextInt(5) == 0 ? null : "n" + rnd.nextInt(1000);
        row[1] = rnd.nextInt(6) == 0 ? null : (long) rnd.nextInt(100_000) - 50_000;
        List<Object> tags = new ArrayList<>();
        for (int i = rnd.nextInt(4); i > 0; i--) {
            tags.add("t" + rnd.nextInt(10));
        }
        row[2] = tags;
        Map<Object, Object> attrs = new LinkedHashMap<>();
        for (int i = rnd.nextInt(3); i > 0; i--) {
            attrs.put("k" + i, (long) rnd.nextInt(100));
        }
        row[3] = attrs;
        row[4] = rnd.nextInt(3) == 0 ? null : new Object[] {"c" + rnd.nextInt(20)};
        byte[] b = encode(id, row);
        if (kind == 4 && row[1] != null && (Long) row[1] >= 0) {
            // a non-canonical amount: decodes, but re-encoding drops the leading zeros
            String text = new String(b, 5, b.length - 5, StandardCharsets.UTF_8);
            int bar = text.indexOf('|');
            text = text.substring(0, bar + 1) + "00" + text.substring(bar + 1);
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
        }
        return b;
    }
}
