package io.tierlog.server.dispatch;

import io.tierlog.common.Time;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the responses that carry an error worth an operator's eye, for every API in one place: those
 * that mean the server failed ({@link #SERVER_ERRORS} at WARN: its storage, or an unexpected
 * exception in a handler) and those that mean a client sent something wrong ({@link #CLIENT_ERRORS}
 * at INFO: a corrupt or oversized batch, an invalid config or topic name). Errors of the normal
 * flow of the protocol (a rebalance in progress, an unknown topic, an offset out of range, a fenced
 * producer) are not logged: clients handle them and they would drown the rest.
 *
 * <p>One line names the API and version, the client id and peer, the error, how many topics or
 * partitions of the response had it, and the first error message the handler set (for a server
 * error, the exception it caught; the handler that caught it logged its stack). Lines are rate
 * limited per API, error and client id to one per {@link #INTERVAL_MS}; the next line says how many
 * responses were not logged meanwhile. A response with thousands of failed partitions is still one
 * line, never one per partition or record.
 *
 * <p>Unsupported APIs and versions are not seen here (the request is refused before a handler
 * runs). Thread-safe.
 */
public final class ResponseErrorLog {
    private static final Logger log = LoggerFactory.getLogger(ResponseErrorLog.class);

    /** At most one line per API, error and client id in this interval. */
    static final long INTERVAL_MS = TimeUnit.MINUTES.toMillis(1);

    /** Rate-limit keys kept before the table is cleared (bounds memory with many client ids). */
    private static final int MAX_KEYS = 4096;

    /** The server failed: logged at WARN. */
    static final Set<Errors> SERVER_ERRORS =
            EnumSet.of(Errors.UNKNOWN_SERVER_ERROR, Errors.KAFKA_STORAGE_ERROR);

    /** The client sent something wrong: logged at INFO. */
    static final Set<Errors> CLIENT_ERRORS =
            EnumSet.of(
                    Errors.INVALID_REQUEST,
                    Errors.CORRUPT_MESSAGE,
                    Errors.INVALID_RECORD,
                    Errors.MESSAGE_TOO_LARGE,
                    Errors.RECORD_LIST_TOO_LARGE,
                    Errors.INVALID_TIMESTAMP,
                    Errors.INVALID_REQUIRED_ACKS,
                    Errors.UNSUPPORTED_COMPRESSION_TYPE,
                    Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT,
                    Errors.INVALID_CONFIG,
                    Errors.INVALID_TOPIC_EXCEPTION,
                    Errors.INVALID_PARTITIONS,
                    Errors.INVALID_REPLICATION_FACTOR,
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    Errors.POLICY_VIOLATION,
                    Errors.INVALID_COMMIT_OFFSET_SIZE,
                    Errors.INVALID_SESSION_TIMEOUT,
                    Errors.INVALID_GROUP_ID,
                    Errors.INCONSISTENT_GROUP_PROTOCOL);

    private record Key(ApiKeys api, Errors error, String clientId) {}

    private final ResponseErrors finder;
    private final LogWindows<Key> windows;

    public ResponseErrorLog(Time time) {
        this.windows = new LogWindows<>(time, INTERVAL_MS, MAX_KEYS);
        EnumSet<Errors> all = EnumSet.copyOf(SERVER_ERRORS);
        all.addAll(CLIENT_ERRORS);
        this.finder = new ResponseErrors(all);
    }

    /** Logs {@code response} to {@code header} if it carries an error of interest. */
    public void responded(RequestHeader header, SocketAddress peer, ApiMessage response) {
        List<ResponseErrors.Found> found;
        try {
            found = finder.find(response);
        } catch (RuntimeException e) {
            // never fail a response for the sake of its log line
            log.debug("could not inspect the {} response for errors", header.apiKey(), e);
            return;
        }
        if (found.isEmpty()) {
            return;
        }
        for (ResponseErrors.Found f : found) {
            Errors error = f.error();
            // CORRUPT_MESSAGE in a fetch answer is the server's own data failing its checks
            boolean serverSide =
                    SERVER_ERRORS.contains(error)
                            || (error == Errors.CORRUPT_MESSAGE
                                    && header.apiKey() == ApiKeys.FETCH);
            int suppressed = windows.admit(new Key(header.apiKey(), error, header.clientId()));
            if (suppressed < 0) {
                continue;
            }
            String fmt = "{} v{} from client '{}' at {}: answered {} for {} item(s){}{}";
            Object[] args = {
                header.apiKey().name,
                header.apiVersion(),
                header.clientId(),
                peer,
                error.name(),
                f.count(),
                f.firstMessage() == null || f.firstMessage().isEmpty()
                        ? ""
                        : " (" + f.firstMessage() + ")",
                suppressed == 0
                        ? ""
                        : "; " + suppressed + " more such response(s) in the last minute"
            };
            if (serverSide) {
                log.warn(fmt, args);
            } else {
                log.info(fmt, args);
            }
        }
    }
}
