package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-copy promise on the write path: a fetch response whose records live in a file is handed
 * to Netty as buffers around a {@link DefaultFileRegion} (sendfile on epoll), never as record bytes
 * in a buffer, and the bytes a client receives parse back to the same records.
 */
class ZeroCopyFetchWriteTest {
    @TempDir Path dir;

    /** Records at [position, position+size) of a file, as the hot tier hands them out. */
    record FileRecords(FileChannel channel, long position, int sizeInBytes)
            implements ZeroCopyRecords {
        @Override
        public Pin pin() {
            return new Pin() {
                @Override
                public FileChannel channel() {
                    return channel;
                }

                @Override
                public void close() {}
            };
        }
    }

    @Test
    void hotFetchRecordsAreWrittenAsFileRegionBetweenFramingBuffers() throws Exception {
        MemoryRecords records =
                MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(1L, "k1".getBytes(), "v1".getBytes()),
                        new SimpleRecord(2L, "k2".getBytes(), "v2".getBytes()));
        Path file = dir.resolve("00000000000000000000.log");
        byte[] junk = new byte[100];
        try (FileChannel w =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            w.write(ByteBuffer.wrap(junk));
            w.write(records.buffer().duplicate());
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        FileRecords slice = new FileRecords(ch, junk.length, records.sizeInBytes());
        ApiHandler fetch =
                KafkaChannelHandlerTest.handler(
                        ApiKeys.FETCH,
                        (short) 12,
                        r -> {
                            FetchResponseData resp = new FetchResponseData();
                            FetchResponseData.FetchableTopicResponse t =
                                    new FetchResponseData.FetchableTopicResponse().setTopic("t");
                            t.partitions()
                                    .add(
                                            new FetchResponseData.PartitionData()
                                                    .setPartitionIndex(0)
                                                    .setHighWatermark(2)
                                                    .setRecords(slice));
                            resp.responses().add(t);
                            return resp;
                        });
        EmbeddedChannel channel =
                new EmbeddedChannel(
                        new KafkaFrameDecoder(1 << 20),
                        new KafkaChannelHandler(new ApiRegistry(List.of(fetch))));
        short version = 12;
        channel.writeInbound(Frames.request(ApiKeys.FETCH, version, 7, new FetchRequestData()));

        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = channel.readOutbound()) != null) {
            out.add(o);
        }
        assertThat(out).hasSize(3);
        assertThat(out.get(0)).isInstanceOf(ByteBuf.class);
        assertThat(out.get(1)).isInstanceOf(DefaultFileRegion.class);
        assertThat(out.get(2)).isInstanceOf(ByteBuf.class);
        DefaultFileRegion region = (DefaultFileRegion) out.get(1);
        assertThat(region.position()).isEqualTo(junk.length);
        assertThat(region.count()).isEqualTo(records.sizeInBytes());

        io.netty.buffer.ByteBuf all = io.netty.buffer.Unpooled.buffer();
        for (Object p : out) {
            Frames.append(all, p);
        }
        ByteBuffer bytes = all.nioBuffer();
        assertThat(bytes.getInt()).isEqualTo(bytes.remaining());
        ResponseHeader header =
                ResponseHeader.parse(bytes, ApiKeys.FETCH.responseHeaderVersion(version));
        assertThat(header.correlationId()).isEqualTo(7);
        FetchResponseData parsed = new FetchResponseData();
        parsed.read(new ByteBufferAccessor(bytes), version);
        MemoryRecords got = (MemoryRecords) parsed.responses().get(0).partitions().get(0).records();
        List<String> values = new ArrayList<>();
        for (Record r : got.records()) {
            values.add(new String(org.apache.kafka.common.utils.Utils.toArray(r.value())));
        }
        assertThat(values).containsExactly("v1", "v2");
        // Releasing the sent region must not close the segment's channel: the hot tier owns it.
        assertThat(region.refCnt()).isZero();
        assertThat(ch.isOpen()).isTrue();
        ch.close();
    }
}
