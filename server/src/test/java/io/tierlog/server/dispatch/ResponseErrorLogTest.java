package io.tierlog.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the central log of failed responses writes, through slf4j-simple to a captured stderr. */
class ResponseErrorLogTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 50000);

    private final MockTime time = new MockTime(1_000_000);
    private final ResponseErrorLog errorLog = new ResponseErrorLog(time);
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

    private List<String> lines() {
        return Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
                .filter(l -> l.contains("ResponseErrorLog"))
                .toList();
    }

    private static RequestHeader header(ApiKeys api, int version, String clientId) {
        return new RequestHeader(api, (short) version, clientId, 7);
    }

    private static ProduceResponseData produce(Errors error, int partitions, String message) {
        TopicProduceResponse t = new TopicProduceResponse().setName("t");
        for (int p = 0; p < partitions; p++) {
            t.partitionResponses()
                    .add(
                            new PartitionProduceResponse()
                                    .setIndex(p)
                                    .setErrorCode(error.code())
                                    .setErrorMessage(message));
        }
        ProduceResponseData r = new ProduceResponseData();
        r.responses().add(t);
        return r;
    }

    @Test
    void storageErrorOfManyPartitionsIsOneWarnNamingApiClientErrorAndMessage() {
        errorLog.responded(
                header(ApiKeys.PRODUCE, 9, "app-1"),
                PEER,
                produce(Errors.KAFKA_STORAGE_ERROR, 3, "java.io.IOException: No space left"));
        assertThat(lines())
                .singleElement()
                .satisfies(
                        l ->
                                assertThat(l)
                                        .contains(
                                                "WARN",
                                                "Produce v9",
                                                "client 'app-1'",
                                                "127.0.0.1",
                                                "KAFKA_STORAGE_ERROR for 3 item(s)",
                                                "No space left"));
    }

    @Test
    void clientErrorIsInfoAndRateLimitedPerClientWithSuppressedCount() {
        for (int i = 0; i < 100; i++) {
            errorLog.responded(
                    header(ApiKeys.PRODUCE, 9, "bad-producer"),
                    PEER,
                    produce(Errors.CORRUPT_MESSAGE, 1, "CRC mismatch"));
        }
        errorLog.responded(
                header(ApiKeys.PRODUCE, 9, "other"),
                PEER,
                produce(Errors.CORRUPT_MESSAGE, 1, "CRC mismatch"));
        assertThat(lines()).hasSize(2);
        assertThat(lines().get(0)).contains("INFO", "'bad-producer'", "CORRUPT_MESSAGE");
        assertThat(lines().get(1)).contains("INFO", "'other'", "CORRUPT_MESSAGE");

        time.advance(ResponseErrorLog.INTERVAL_MS - 1);
        errorLog.responded(
                header(ApiKeys.PRODUCE, 9, "bad-producer"),
                PEER,
                produce(Errors.CORRUPT_MESSAGE, 1, "CRC mismatch"));
        assertThat(lines()).hasSize(2);
        time.advance(1);
        errorLog.responded(
                header(ApiKeys.PRODUCE, 9, "bad-producer"),
                PEER,
                produce(Errors.CORRUPT_MESSAGE, 1, "CRC mismatch"));
        assertThat(lines()).hasSize(3);
        assertThat(lines().get(2)).contains("'bad-producer'", "100 more such response(s)");
    }

    @Test
    void errorsOfTheNormalProtocolFlowAreNotLogged() {
        errorLog.responded(
                header(ApiKeys.PRODUCE, 9, "c"),
                PEER,
                produce(Errors.NOT_LEADER_OR_FOLLOWER, 2, null));
        errorLog.responded(
                header(ApiKeys.JOIN_GROUP, 5, "c"),
                PEER,
                new JoinGroupResponseData().setErrorCode(Errors.REBALANCE_IN_PROGRESS.code()));
        errorLog.responded(header(ApiKeys.PRODUCE, 9, "c"), PEER, produce(Errors.NONE, 5, null));
        assertThat(lines()).isEmpty();
    }

    @Test
    void corruptDataInAFetchAnswerIsTheServersFault() {
        FetchResponseData r = new FetchResponseData();
        FetchResponseData.FetchableTopicResponse t =
                new FetchResponseData.FetchableTopicResponse().setTopic("t");
        t.partitions()
                .add(
                        new FetchResponseData.PartitionData()
                                .setPartitionIndex(0)
                                .setErrorCode(Errors.CORRUPT_MESSAGE.code()));
        r.responses().add(t);
        errorLog.responded(header(ApiKeys.FETCH, 12, "reader"), PEER, r);
        assertThat(lines())
                .singleElement()
                .asString()
                .contains("WARN", "Fetch v12", "CORRUPT_MESSAGE");
    }

    @Test
    void topicLevelErrorsOfAdminAnswersAreFoundWithTheirMessages() {
        CreateTopicsResponseData r = new CreateTopicsResponseData();
        r.topics()
                .add(
                        new CreatableTopicResult()
                                .setName("t")
                                .setErrorCode(Errors.INVALID_CONFIG.code())
                                .setErrorMessage("Unknown topic config name: foo.bar"));
        r.topics().add(new CreatableTopicResult().setName("u"));
        errorLog.responded(header(ApiKeys.CREATE_TOPICS, 7, "admin"), PEER, r);
        assertThat(lines())
                .singleElement()
                .asString()
                .contains(
                        "INFO",
                        "CreateTopics v7",
                        "INVALID_CONFIG for 1 item(s)",
                        "Unknown topic config name: foo.bar");
    }

    @Test
    void unknownServerErrorAtTopLevelIsAWarn() {
        errorLog.responded(
                header(ApiKeys.JOIN_GROUP, 5, "c"),
                PEER,
                new JoinGroupResponseData().setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()));
        assertThat(lines())
                .singleElement()
                .asString()
                .contains("WARN", "JoinGroup v5", "UNKNOWN_SERVER_ERROR");
    }
}
