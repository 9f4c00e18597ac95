package io.tierlog.cold;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Reads the values of one leaf column of one row group, row by row, page by page (data page v1, any
 * value encoding parquet-mr implements, page CRCs verified). Pages come from a {@link Pages} source
 * that fetches them on demand. Plain byte arrays (keys and values) are read in place from the
 * decompressed page: {@link #bytes}, {@link #offset} and {@link #length} describe the last binary
 * read and stay valid until the next page of this column is loaded.
 *
 * <p>Not thread-safe: one cursor per column per read.
 */
final class ColumnCursor {
    /** Where a cursor gets the raw bytes (header included) of its pages. */
    interface Pages {
        ByteBuffer dataPage(ObjectPages.Chunk chunk, int page) throws IOException;

        ByteBuffer dictionaryPage(ObjectPages.Chunk chunk) throws IOException;
    }

    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

    private final ObjectPages pagesIndex;
    private final int group;
    private final String leaf;
    private final ObjectPages.Chunk chunk;
    private final ColumnDescriptor descriptor;
    private final Pages source;
    private final PageDecompressor codecs;
    private final int maxRep;
    private final int maxDef;
    private final boolean binary;

    /** This column chunk's dictionary, once decoded (or found decoded) by this cursor. */
    private Dictionary dictionary;

    private int nextPage;
    private int valuesLeft;
    private ValuesReader rep;
    private ValuesReader def;
    private ValuesReader values;
    private int pendingRep;

    /** Plain byte arrays read in place: the page and the position of the next value. */
    private byte[] plain;

    private int plainPos;

    private int plainEnd;

    /** Decompressed data pages, reused: a page is consumed before the next one is loaded. */
    private byte[] pageBuffer;

    /** The last binary read: {@code bytes[offset, offset + length)}. */
    byte[] bytes;

    int offset;
    int length;

    ColumnCursor(
            ObjectPages pagesIndex,
            int group,
            String leaf,
            ObjectPages.Chunk chunk,
            Pages source,
            PageDecompressor codecs) {
        this.pagesIndex = pagesIndex;
        this.group = group;
        this.leaf = leaf;
        this.chunk = chunk;
        this.descriptor = chunk.descriptor();
        this.source = source;
        this.codecs = codecs;
        this.maxRep = descriptor.getMaxRepetitionLevel();
        this.maxDef = descriptor.getMaxDefinitionLevel();
        this.binary =
                descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
    }

    String leaf() {
        return leaf;
    }

    ObjectPages.Chunk chunk() {
        return chunk;
    }

    int maxDefinitionLevel() {
        return maxDef;
    }

    /** Positions the cursor at row {@code row} of the row group (a fresh cursor only). */
    void seekToRow(long row) throws IOException {
        int p = chunk.pageOfRow(row);
        nextPage = p;
        long at = chunk.pages().getFirstRowIndex(p);
        loadPage();
        for (; at < row; at++) {
            skipRow();
        }
    }

    private void ensurePage() throws IOException {
        if (valuesLeft == 0) {
            loadPage();
        }
    }

    /** Reads the next value of a required INT64 column. */
    long readLong() throws IOException {
        ensurePage();
        valuesLeft--;
        return values.readLong();
    }

    /** Reads the next value of a required INT32 column. */
    int readInt() throws IOException {
        ensurePage();
        valuesLeft--;
        return values.readInteger();
    }

    /**
     * Starts the next entry (value slot) of this column and returns its definition level; a caller
     * then calls {@link #readBinaryValue} if the level is the maximum, and {@link #endEntry} in any
     * case.
     */
    int beginEntry() throws IOException {
        ensurePage();
        valuesLeft--;
        return maxDef == 0 ? 0 : def.readInteger();
    }

    /** Finishes an entry: reads the repetition level of the next one. */
    void endEntry() {
        if (maxRep > 0 && valuesLeft > 0) {
            pendingRep = rep.readInteger();
        }
    }

    /** True if the next entry continues the current row (repetition level above 0). */
    boolean continuesRow() {
        return maxRep > 0 && valuesLeft > 0 && pendingRep > 0;
    }

    /**
     * Reads the binary value of the current entry into {@link #bytes}/{@link #offset}/{@link
     * #length}.
     */
    void readBinaryValue() throws IOException {
        if (plain != null) {
            int n =
                    (plain[plainPos] & 0xff)
                            | (plain[plainPos + 1] & 0xff) << 8
                            | (plain[plainPos + 2] & 0xff) << 16
                            | (plain[plainPos + 3] & 0xff) << 24;
            if (n < 0 || n > plainEnd - plainPos - 4) {
                throw new IOException("corrupt plain value of " + n + " bytes in column " + leaf);
            }
            bytes = plain;
            offset = plainPos + 4;
            length = n;
            plainPos += 4 + n;
            return;
        }
        Binary b = values.readBytes();
        ByteBuffer bb = b.toByteBuffer();
        if (bb.hasArray()) {
            bytes = bb.array();
            offset = bb.arrayOffset() + bb.position();
            length = bb.remaining();
        } else {
            bytes = b.getBytes();
            offset = 0;
            length = bytes.length;
        }
    }

    /** Skips one whole row. */
    void skipRow() throws IOException {
        do {
            int d = beginEntry();
            if (d == maxDef) {
                if (binary) {
                    readBinaryValue();
                } else {
                    values.skip();
                }
            }
            endEntry();
        } while (continuesRow());
    }

    private void loadPage() throws IOException {
        if (nextPage >= chunk.pages().getPageCount()) {
            throw new IOException("column " + leaf + " has no page after " + nextPage);
        }
        ByteBuffer raw = source.dataPage(chunk, nextPage);
        nextPage++;
        ByteBufferInputStream in = ByteBufferInputStream.wrap(raw.duplicate());
        PageHeader h = Util.readPageHeader(in);
        if (h.getType() != PageType.DATA_PAGE) {
            throw new ObjectPages.UnsupportedLayoutException(
                    "page type " + h.getType() + " in column " + leaf);
        }
        DataPageHeader d = h.getData_page_header();
        ByteBuffer page = payload(raw, (int) in.position(), h, true);
        int count = d.getNum_values();
        ByteBufferInputStream data = ByteBufferInputStream.wrap(page.duplicate());
        rep =
                CONVERTER
                        .getEncoding(d.getRepetition_level_encoding())
                        .getValuesReader(descriptor, ValuesType.REPETITION_LEVEL);
        rep.initFromPage(count, data);
        def =
                CONVERTER
                        .getEncoding(d.getDefinition_level_encoding())
                        .getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
        def.initFromPage(count, data);
        Encoding enc = CONVERTER.getEncoding(d.getEncoding());
        if (binary && enc == Encoding.PLAIN) {
            plain = page.array();
            plainPos = page.arrayOffset() + page.position() + (int) data.position();
            plainEnd = page.arrayOffset() + page.limit();
            values = null;
        } else {
            plain = null;
            values =
                    enc.usesDictionary()
                            ? enc.getDictionaryBasedValuesReader(
                                    descriptor, ValuesType.VALUES, dictionary())
                            : enc.getValuesReader(descriptor, ValuesType.VALUES);
            values.initFromPage(count, data);
        }
        valuesLeft = count;
        pendingRep = 0;
        if (maxRep > 0 && count > 0) {
            pendingRep = rep.readInteger();
        }
    }

    private Dictionary dictionary() throws IOException {
        if (dictionary != null) {
            return dictionary;
        }
        Dictionary d = pagesIndex.dictionary(group, leaf);
        if (d != null) {
            dictionary = d;
            return d;
        }
        if (chunk.dictionaryLength() == 0) {
            throw new IOException(
                    "column " + leaf + " is dictionary encoded but has no dictionary");
        }
        ByteBuffer raw = source.dictionaryPage(chunk);
        ByteBufferInputStream in = ByteBufferInputStream.wrap(raw.duplicate());
        PageHeader h = Util.readPageHeader(in);
        if (h.getType() != PageType.DICTIONARY_PAGE) {
            throw new IOException(
                    "expected a dictionary page in column " + leaf + ", found " + h.getType());
        }
        DictionaryPageHeader dh = h.getDictionary_page_header();
        // The dictionary keeps referring to its bytes: an uncompressed page is a view of the
        // fetched bytes, which live only as long as the read (ReadArena), so it is copied.
        ByteBuffer bytes = payload(raw, (int) in.position(), h, false);
        if (raw.hasArray() && bytes.array() == raw.array()) {
            bytes = ByteBuffer.allocate(bytes.remaining()).put(bytes.duplicate()).flip();
        }
        DictionaryPage page =
                new DictionaryPage(
                        BytesInput.from(bytes),
                        bytes.remaining(),
                        dh.getNum_values(),
                        CONVERTER.getEncoding(dh.getEncoding()));
        d = page.getEncoding().initDictionary(descriptor, page);
        pagesIndex.putDictionary(group, leaf, d, bytes.remaining());
        dictionary = d;
        return d;
    }

    /**
     * The page's data after the header, CRC-checked and decompressed (into the reused page buffer
     * if {@code reuse}), as a heap buffer from position 0.
     */
    private ByteBuffer payload(ByteBuffer raw, int headerLength, PageHeader h, boolean reuse)
            throws IOException {
        int compressed = h.getCompressed_page_size();
        int uncompressed = h.getUncompressed_page_size();
        if (compressed < 0 || uncompressed < 0 || headerLength + compressed > raw.remaining()) {
            throw new IOException(
                    "corrupt page header in column " + leaf + ": " + compressed + " bytes");
        }
        byte[] src;
        int srcOff;
        if (raw.hasArray()) {
            src = raw.array();
            srcOff = raw.arrayOffset() + raw.position() + headerLength;
        } else {
            src = new byte[compressed];
            raw.duplicate().position(raw.position() + headerLength).get(src);
            srcOff = 0;
        }
        if (h.isSetCrc()) {
            CRC32 crc = new CRC32();
            crc.update(src, srcOff, compressed);
            if ((int) crc.getValue() != h.getCrc()) {
                throw new IOException("page checksum mismatch in column " + leaf);
            }
        }
        return codecs.decompress(
                chunk.meta().getCodec(),
                src,
                srcOff,
                compressed,
                uncompressed,
                reuse ? pageBuffer(uncompressed) : null);
    }

    private byte[] pageBuffer(int size) {
        if (pageBuffer == null || pageBuffer.length < size) {
            pageBuffer =
                    new byte[Math.max(size, pageBuffer == null ? 0 : pageBuffer.length * 5 / 4)];
        }
        return pageBuffer;
    }
}
