package io.tierlog.itests.iceberg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A read-only Iceberg {@link FileIO} over the embedded S3 server's files: {@code
 * s3://<bucket>/<key>} is {@code <root>/<bucket>/<key>} (the s3proxy file layout under {@code
 * <data.dir>/s3}). The tests read tables with it straight from disk, whether the server is up,
 * killed or stopped, and through no tierlog code. Writes and deletes are refused. Thread-safe.
 */
public final class LocalBucketFileIO implements FileIO {
    /** Catalog property naming the root, for catalogs that build their FileIO by class name. */
    public static final String ROOT_PROPERTY = "tierlog.test.s3.root";

    private Path root;

    /** For {@code io-impl}: the root comes from {@link #ROOT_PROPERTY} in {@link #initialize}. */
    public LocalBucketFileIO() {}

    public LocalBucketFileIO(Path root) {
        this.root = root;
    }

    @Override
    public void initialize(Map<String, String> properties) {
        if (root == null && properties.containsKey(ROOT_PROPERTY)) {
            root = Path.of(properties.get(ROOT_PROPERTY));
        }
    }

    /** The local file that holds {@code location}. */
    public Path file(String location) {
        if (!location.startsWith("s3://")) {
            throw new IllegalArgumentException("not an s3:// location: " + location);
        }
        return root.resolve(location.substring("s3://".length()));
    }

    @Override
    public InputFile newInputFile(String location) {
        Path f = file(location);
        InputFile local = org.apache.iceberg.Files.localInput(f.toFile());
        return new InputFile() {
            @Override
            public long getLength() {
                return local.getLength();
            }

            @Override
            public SeekableInputStream newStream() {
                return local.newStream();
            }

            @Override
            public String location() {
                return location;
            }

            @Override
            public boolean exists() {
                return Files.isRegularFile(f);
            }
        };
    }

    @Override
    public OutputFile newOutputFile(String location) {
        throw new UnsupportedOperationException("read-only: " + location);
    }

    @Override
    public void deleteFile(String location) {
        throw new UnsupportedOperationException("read-only: " + location);
    }
}
