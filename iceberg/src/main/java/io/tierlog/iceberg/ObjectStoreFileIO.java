package io.tierlog.iceberg;

import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStore;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's {@link FileIO} over tierlog's {@link ObjectStore}: {@code s3://<bucket>/<key>} is the
 * object at {@code key} (any other bucket or scheme is refused), reads are ranged GETs, a new file
 * is written to a local temp file and uploaded with one {@code put} when its stream closes. So
 * tables use tierlog's checksums, retries and deadlines, and need neither Hadoop S3A nor
 * iceberg-aws. Thread-safe (the store is); {@link #close()} leaves the store open (its owner closes
 * it).
 */
public final class ObjectStoreFileIO implements FileIO {
    private static final long serialVersionUID = 1L;
    private static final int READ_CHUNK = 1 << 20;

    private final transient ObjectStore store;
    private final String bucket;

    /** A FileIO over {@code store}, whose bucket is {@code bucket}. */
    public ObjectStoreFileIO(ObjectStore store, String bucket) {
        this.store = Objects.requireNonNull(store, "store");
        this.bucket = Objects.requireNonNull(bucket, "bucket");
    }

    /** The {@code s3://} location of the object at {@code key}. */
    public String location(String key) {
        return "s3://" + bucket + "/" + key;
    }

    /** The object key of {@code location}; refuses another scheme or bucket. */
    public String key(String location) {
        String head = "s3://" + bucket + "/";
        String loc = location.startsWith("s3a://") ? "s3://" + location.substring(6) : location;
        if (!loc.startsWith(head) || loc.length() == head.length()) {
            throw new IllegalArgumentException(
                    "not an object of bucket " + bucket + ": " + location);
        }
        return loc.substring(head.length());
    }

    @Override
    public InputFile newInputFile(String path) {
        return new In(path, -1);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return new In(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new Out(path);
    }

    @Override
    public void deleteFile(String path) {
        try {
            store.delete(key(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, String> properties() {
        return Map.of();
    }

    @Override
    public void close() {}

    /**
     * An input file. Of unknown length (metadata.json, a manifest list: small files), the first use
     * reads the whole object with one GET rather than a HEAD and then ranged GETs; of known length
     * (manifests, data files), reads are ranged GETs.
     */
    private final class In implements InputFile {
        private final String path;
        private final String key;
        private long length;
        private ByteBuffer whole;

        In(String path, long length) {
            this.path = path;
            this.key = key(path);
            this.length = length;
        }

        private void readWhole() {
            try {
                whole = store.get(key).slice();
                length = whole.remaining();
            } catch (ObjectNotFoundException e) {
                throw new NotFoundException(e, "file does not exist: %s", path);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public long getLength() {
            if (length < 0) {
                readWhole();
            }
            return length;
        }

        @Override
        public SeekableInputStream newStream() {
            if (length < 0) {
                readWhole();
            }
            if (whole != null) {
                return new RangedStream(key, whole.duplicate());
            }
            return new RangedStream(key, length);
        }

        @Override
        public String location() {
            return path;
        }

        @Override
        public boolean exists() {
            if (length >= 0) {
                return true;
            }
            try {
                length = store.head(key).size();
                return true;
            } catch (ObjectNotFoundException e) {
                return false;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Reads the object in chunks of ranged GETs. Not thread-safe (a stream). */
    private final class RangedStream extends SeekableInputStream {
        private final String key;
        private final long length;
        private long pos;
        private ByteBuffer chunk = ByteBuffer.allocate(0);
        private long chunkStart;

        RangedStream(String key, long length) {
            this.key = key;
            this.length = length;
        }

        /** A stream over bytes already read (the whole object). */
        RangedStream(String key, ByteBuffer whole) {
            this.key = key;
            this.length = whole.remaining();
            this.chunk = whole;
            this.chunkStart = 0;
        }

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) throws IOException {
            if (newPos < 0) {
                throw new IOException("negative seek " + newPos + " in " + key);
            }
            pos = newPos;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos >= length) {
                return -1;
            }
            if (pos < chunkStart || pos >= chunkStart + chunk.limit()) {
                int n = (int) Math.min(Math.max(len, READ_CHUNK), length - pos);
                try {
                    chunk = store.get(key, pos, n).slice();
                } catch (ObjectNotFoundException e) {
                    throw new NotFoundException(e, "file does not exist: %s", key);
                }
                chunkStart = pos;
                if (chunk.limit() == 0) {
                    return -1;
                }
            }
            int at = (int) (pos - chunkStart);
            int n = Math.min(len, chunk.limit() - at);
            chunk.duplicate().position(at).get(b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() {}
    }

    private final class Out implements OutputFile {
        private final String path;
        private final String key;

        Out(String path) {
            this.path = path;
            this.key = key(path);
        }

        @Override
        public PositionOutputStream create() {
            try {
                store.head(key);
                throw new AlreadyExistsException("file already exists: %s", path);
            } catch (ObjectNotFoundException e) {
                return createOrOverwrite();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            try {
                return new Upload(key, Files.createTempFile("tierlog-iceberg-", ".tmp"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public String location() {
            return path;
        }

        @Override
        public InputFile toInputFile() {
            return new In(path, -1);
        }
    }

    /** Writes a temp file, uploaded on close. Not thread-safe (a stream). */
    private final class Upload extends PositionOutputStream {
        private final String key;
        private final Path file;
        private final OutputStream out;
        private long pos;
        private boolean closed;

        Upload(String key, Path file) throws IOException {
            this.key = key;
            this.file = file;
            this.out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        }

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            pos++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            pos += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                out.close();
                store.put(key, file);
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }
}
