package io.tierlog.cold;

/** Compression codec of the Parquet pages of cold objects ({@code cold.compression}). Immutable. */
public enum ColdCompression {
    ZSTD,
    SNAPPY,
    GZIP,
    LZ4_RAW,
    UNCOMPRESSED
}
