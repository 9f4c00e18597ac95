package io.tierlog.cold.testing;

import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ObjectStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * An {@link ObjectStore} over a local directory (key = relative path), for unit tests that need no
 * HTTP. Puts are atomic (write to a temp file, then rename). Thread-safe.
 */
public final class LocalDirObjectStore implements ObjectStore {
    private final Path root;

    public LocalDirObjectStore(Path root) throws IOException {
        this.root = Files.createDirectories(root);
    }

    private Path path(String key) {
        Path p = root.resolve(key).normalize();
        if (!p.startsWith(root)) {
            throw new IllegalArgumentException("key escapes the store: " + key);
        }
        return p;
    }

    @Override
    public void put(String key, Path file) throws IOException {
        put(key, Files.readAllBytes(file));
    }

    @Override
    public void put(String key, byte[] data) throws IOException {
        Path p = path(key);
        Files.createDirectories(p.getParent());
        Path tmp = Files.createTempFile(p.getParent(), ".put", ".tmp");
        Files.write(tmp, data);
        Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public ByteBuffer get(String key, long position, int length) throws IOException {
        try (FileChannel ch = FileChannel.open(path(key), StandardOpenOption.READ)) {
            long size = ch.size();
            if (position >= size && length > 0) {
                throw new ObjectStoreException(
                        key, "range start " + position + " past size " + size);
            }
            int n = (int) Math.min(length, size - position);
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining()) {
                if (ch.read(b, position + b.position()) < 0) {
                    break;
                }
            }
            return b.flip();
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(key, e);
        }
    }

    @Override
    public ByteBuffer get(String key) throws IOException {
        try {
            return ByteBuffer.wrap(Files.readAllBytes(path(key)));
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(key, e);
        }
    }

    @Override
    public ObjectInfo head(String key) throws IOException {
        Path p = path(key);
        if (!Files.isRegularFile(p)) {
            throw new ObjectNotFoundException(key);
        }
        return new ObjectInfo(key, Files.size(p), Files.getLastModifiedTime(p).toInstant());
    }

    @Override
    public List<ObjectInfo> list(String prefix) throws IOException {
        List<ObjectInfo> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                String key = root.relativize(p).toString().replace('\\', '/');
                if (key.startsWith(prefix) && !p.getFileName().toString().endsWith(".tmp")) {
                    out.add(head(key));
                }
            }
        }
        out.sort(Comparator.comparing(ObjectInfo::key));
        return out;
    }

    @Override
    public void delete(String key) throws IOException {
        Files.deleteIfExists(path(key));
    }

    @Override
    public void close() {}
}
