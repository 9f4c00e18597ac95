package io.tierlog.cold;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Narrow object-store seam (the size of Iceberg's {@code FileIO}). Keys are full object keys in the
 * store's bucket: implementations add nothing, so callers include {@code s3.prefix} themselves
 * (build keys with {@link ObjectKeys} and {@link ColdTierOptions#prefix()}). Every failure is an
 * {@link ObjectStoreException} carrying the key.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@code put} replaces any object under the key; a completed {@code put} is durable and
 *       readable by {@code get}/{@code head}/{@code list}. Payloads are checksummed end to end.
 *   <li>{@code get} of an absent key and {@code head} of an absent key throw {@link
 *       ObjectNotFoundException}.
 *   <li>{@code delete} is idempotent: deleting an absent key succeeds.
 *   <li>{@code list} returns every object under the prefix (all pages), sorted by key.
 *   <li>The caller closes the store; closing releases connections.
 * </ul>
 *
 * <p>Implementations are thread-safe.
 */
public interface ObjectStore extends Closeable {

    /** Uploads a local file; implementations switch to multipart above a size threshold. */
    void put(String key, Path file) throws IOException;

    /** Uploads a byte array. */
    void put(String key, byte[] data) throws IOException;

    /**
     * Reads {@code length} bytes starting at {@code position} (a ranged GET). A range that ends
     * past the object's end returns the bytes up to the end; a position at or past the end fails.
     */
    ByteBuffer get(String key, long position, int length) throws IOException;

    /**
     * Reads consecutive parts of one range with a single ranged GET, each part into its own buffer,
     * so that a large read is not one huge array: part {@code i} holds the {@code lengths[i]} bytes
     * that follow the previous parts, starting at {@code position}; a negative length skips that
     * many bytes and leaves its slot null. Fails if the object ends before the range does. The
     * default reads the range with {@link #get(String, long, int)} and slices it.
     */
    default ByteBuffer[] getParts(String key, long position, int[] lengths) throws IOException {
        return getParts(key, position, lengths, ByteBuffer::allocate);
    }

    /**
     * As {@link #getParts(String, long, int[])}, with each part's buffer from {@code allocate}
     * (which returns a heap buffer of exactly the size asked for).
     */
    default ByteBuffer[] getParts(
            String key, long position, int[] lengths, IntFunction<ByteBuffer> allocate)
            throws IOException {
        long total = 0;
        for (int l : lengths) {
            total += Math.abs((long) l);
        }
        ByteBuffer all = get(key, position, Math.toIntExact(total));
        if (all.remaining() < total) {
            throw new ObjectCorruptException(
                    key,
                    "short ranged read at "
                            + position
                            + ": wanted "
                            + total
                            + " bytes, got "
                            + all.remaining(),
                    null);
        }
        ByteBuffer[] parts = new ByteBuffer[lengths.length];
        int at = all.position();
        for (int i = 0; i < lengths.length; i++) {
            int n = Math.abs(lengths[i]);
            if (lengths[i] >= 0) {
                ByteBuffer src = all.duplicate();
                src.position(at).limit(at + n);
                ByteBuffer part = allocate.apply(n);
                part.duplicate().put(src);
                parts[i] = part;
            }
            at += n;
        }
        return parts;
    }

    /** Reads a whole object. */
    ByteBuffer get(String key) throws IOException;

    /** Size and modification time of an object; {@link ObjectNotFoundException} if absent. */
    ObjectInfo head(String key) throws IOException;

    /** Every object whose key starts with {@code prefix}, sorted by key. */
    List<ObjectInfo> list(String prefix) throws IOException;

    /** Deletes an object; succeeds if it does not exist. */
    void delete(String key) throws IOException;
}
