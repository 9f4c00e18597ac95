package io.tierlog.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.tierlog.server.dispatch.ApiRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a connection logs when a handler fails: a throw is one WARN with its stack naming the
 * request, and an answer carrying a server error goes to the central response error log.
 */
class FailureLoggingTest {
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream original;

    @BeforeEach
    void capture() {
        original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(original);
        System.err.print(captured.toString(StandardCharsets.UTF_8));
    }

    private String all() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    private List<String> lines(String... parts) {
        return Arrays.stream(all().split("\n"))
                .filter(l -> Arrays.stream(parts).allMatch(l::contains))
                .toList();
    }

    private static EmbeddedChannel channel(KafkaChannelHandlerTest.Fn fn) {
        ApiRegistry registry =
                new ApiRegistry(
                        List.of(KafkaChannelHandlerTest.handler(ApiKeys.METADATA, (short) 12, fn)));
        return new EmbeddedChannel(
                new KafkaFrameDecoder(1 << 20), new KafkaChannelHandler(registry));
    }

    @Test
    void aHandlerThatThrowsIsLoggedOnceWithItsStackNamingTheRequest() {
        EmbeddedChannel ch =
                channel(
                        r -> {
                            throw new IllegalStateException("boom in a handler");
                        });
        ch.writeInbound(Frames.request(ApiKeys.METADATA, (short) 9, 17, new MetadataRequestData()));
        assertThat(ch.isOpen()).isFalse();
        assertThat(lines("WARN", "KafkaChannelHandler"))
                .singleElement()
                .asString()
                .contains(
                        "Metadata v9", "correlation id 17", "client 'test'", "closing connection");
        assertThat(lines("IllegalStateException: boom in a handler")).hasSize(1);
        assertThat(all()).contains("\tat ");
    }

    @Test
    void anAnswerWithAStorageErrorIsLoggedByTheResponseErrorLog() {
        EmbeddedChannel ch =
                channel(
                        r -> {
                            MetadataResponseData d = new MetadataResponseData();
                            d.topics()
                                    .add(
                                            new MetadataResponseTopic()
                                                    .setName("t")
                                                    .setErrorCode(
                                                            Errors.KAFKA_STORAGE_ERROR.code()));
                            return d;
                        });
        ch.writeInbound(Frames.request(ApiKeys.METADATA, (short) 9, 1, new MetadataRequestData()));
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.outboundMessages()).isNotEmpty();
        assertThat(lines("WARN", "ResponseErrorLog"))
                .singleElement()
                .asString()
                .contains("Metadata v9", "client 'test'", "KAFKA_STORAGE_ERROR for 1 item(s)");
    }
}
