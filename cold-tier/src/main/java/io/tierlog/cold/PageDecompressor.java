package io.tierlog.cold;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Decompresses Parquet pages for one read: ZSTD (the default codec) array to array with one reused
 * native context (creating a context per page cost more than decompressing small pages), other
 * codecs through parquet-mr's codec factory. Closing frees the native context.
 *
 * <p>Not thread-safe: one per read.
 */
final class PageDecompressor implements AutoCloseable {
    private final ParquetConfiguration conf;
    private ZstdDecompressCtx zstd;
    private CodecFactory codecs;

    PageDecompressor(ParquetConfiguration conf) {
        this.conf = conf;
    }

    /**
     * Decompresses {@code src[off, off + len)} of codec {@code codec} to {@code uncompressed}
     * bytes, into {@code dst} if it is not null (and large enough), as a heap buffer from position
     * 0. Uncompressed pages are returned in place.
     */
    ByteBuffer decompress(
            CompressionCodecName codec, byte[] src, int off, int len, int uncompressed, byte[] dst)
            throws IOException {
        switch (codec) {
            case UNCOMPRESSED:
                if (len != uncompressed) {
                    throw new IOException(
                            "uncompressed page of " + len + " bytes claims " + uncompressed);
                }
                return ByteBuffer.wrap(src, off, len).slice();
            case ZSTD:
                byte[] out =
                        dst != null && dst.length >= uncompressed ? dst : new byte[uncompressed];
                if (zstd == null) {
                    zstd = new ZstdDecompressCtx();
                }
                int n;
                try {
                    n = zstd.decompressByteArray(out, 0, uncompressed, src, off, len);
                } catch (ZstdException e) {
                    throw new IOException("cannot decompress ZSTD page: " + e.getMessage(), e);
                }
                if (n != uncompressed) {
                    throw new IOException(
                            "ZSTD page decompressed to "
                                    + n
                                    + " bytes, header says "
                                    + uncompressed);
                }
                return ByteBuffer.wrap(out, 0, uncompressed).slice();
            default:
                if (codecs == null) {
                    codecs = new CodecFactory(conf, 0);
                }
                return ByteBuffer.wrap(
                        codecs.getDecompressor(codec)
                                .decompress(BytesInput.from(src, off, len), uncompressed)
                                .toByteArray());
        }
    }

    @Override
    public void close() {
        if (zstd != null) {
            zstd.close();
            zstd = null;
        }
        if (codecs != null) {
            codecs.release();
            codecs = null;
        }
    }
}
