package io.tierlog.server.net;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator, at INFO, which clients ask for what this server does not serve: an API it
 * does not route, or a version outside the advertised range. Each client id is logged once per API
 * and version (a client that retries on every reconnect would otherwise flood the log); the
 * remembered pairs are bounded, the least recently seen forgotten first, so a client id per
 * connection cannot grow memory. Thread-safe (one instance is shared by every connection).
 */
final class UnsupportedRequestLog {
    private static final Logger LOG = LoggerFactory.getLogger(UnsupportedRequestLog.class);

    /** Default bound of remembered (client id, API, version) triples. */
    static final int DEFAULT_CAPACITY = 1024;

    private final Map<String, Boolean> seen;

    UnsupportedRequestLog() {
        this(DEFAULT_CAPACITY);
    }

    UnsupportedRequestLog(int capacity) {
        this.seen =
                new LinkedHashMap<>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                        return size() > capacity;
                    }
                };
    }

    /**
     * Records one unsupported request; logs it unless this client already asked for this API and
     * version since it was last forgotten.
     *
     * @param clientId the request header's client id (null when it has none)
     * @param api the API's name, or "unknown API key N"
     * @param version the requested version
     * @param served the served version range ("0-11"), or null when the API is not served
     * @param peer the connection's remote address, for the log line
     * @return true when this call logged
     */
    boolean record(String clientId, String api, short version, String served, Object peer) {
        String key = clientId + '\u0000' + api + '\u0000' + version;
        synchronized (seen) {
            if (seen.put(key, Boolean.TRUE) != null) {
                return false;
            }
        }
        if (served == null) {
            LOG.info(
                    "client '{}' ({}) sent {} version {}, an API this server does not serve;"
                            + " closing the connection (logged once per client id, API and"
                            + " version)",
                    clientId,
                    peer,
                    api,
                    version);
        } else {
            LOG.info(
                    "client '{}' ({}) sent {} version {}, a version this server does not serve"
                            + " (it serves {}); closing the connection (logged once per client"
                            + " id, API and version)",
                    clientId,
                    peer,
                    api,
                    version,
                    served);
        }
        return true;
    }

    /** Number of remembered triples (tests). */
    int size() {
        synchronized (seen) {
            return seen.size();
        }
    }
}
