package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.ServeProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema registry lives in the catalog, so every process on one catalog shares one id space:
 * two {@code tierlog serve} processes (separate data dirs, one SQLite catalog) registering at once
 * hand out distinct ids and versions and each serves what the other registered; and a {@code serve}
 * killed with SIGKILL while clients register keeps every acknowledged registration, and after the
 * restart never hands out an id it had handed out before (not even the id of a hard-deleted
 * schema).
 */
class SharedRegistryCatalogIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KILL_CYCLES = 3;
    private static final int ACKS_BEFORE_KILL = 40;
    private static final int THREADS = 4;

    @TempDir Path dir;

    @Test
    void twoServersOnOneCatalogHandOutDistinctIdsAndServeEachOthersSchemas() throws Exception {
        String catalog = "catalog.url=jdbc:sqlite:" + dir.resolve("shared-catalog.db");
        int[] registry = {freePort(), freePort()};
        List<Process> servers = new ArrayList<>();
        try {
            for (int s = 0; s < 2; s++) {
                servers.add(
                        ServeProcess.start(
                                dir.resolve("serve" + s + ".log"),
                                freePort(),
                                dir.resolve("data" + s),
                                ServeProcess.QUICK_START,
                                catalog,
                                "schema.registry.listen=127.0.0.1:" + registry[s]));
            }
            RegistryHttp a = awaitUp(registry[0], servers.get(0));
            RegistryHttp b = awaitUp(registry[1], servers.get(1));
            assertThat(a.setCompatibility("shared-value", "NONE").status()).isEqualTo(200);

            // Both register at once: own subjects, and versions of one subject they share.
            Map<String, Integer> idOf = new ConcurrentHashMap<>();
            Map<Integer, String> sharedVersionSchema = new ConcurrentHashMap<>();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                RegistryHttp r = s == 0 ? a : b;
                String who = s == 0 ? "a" : "b";
                threads.add(
                        new Thread(
                                () -> {
                                    try {
                                        for (int i = 0; i < 25; i++) {
                                            String schema = schema(who + "_own_" + i);
                                            idOf.put(
                                                    schema,
                                                    register(r, who + i + "-value", schema));
                                            String shared = schema(who + "_shared_" + i);
                                            idOf.put(shared, register(r, "shared-value", shared));
                                        }
                                    } catch (Throwable t) {
                                        synchronized (failures) {
                                            failures.add(t);
                                        }
                                    }
                                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(Duration.ofMinutes(2).toMillis());
            }
            assertThat(failures).isEmpty();
            assertThat(idOf).hasSize(100);
            assertThat(new HashSet<>(idOf.values()))
                    .as("ids handed out by two servers")
                    .hasSize(100);

            for (Map.Entry<String, Integer> e : idOf.entrySet()) {
                for (RegistryHttp r : List.of(a, b)) {
                    RegistryHttp.Answer got = r.get("/schemas/ids/" + e.getValue());
                    assertThat(got.status())
                            .as("id %d: %s", e.getValue(), got.body())
                            .isEqualTo(200);
                    assertThat(JSON.readTree(got.body().get("schema").asText()))
                            .isEqualTo(JSON.readTree(e.getKey()));
                }
            }
            // one subject written by both: versions 1..50, each with its own schema, seen alike
            JsonNode versionsA = a.get("/subjects/shared-value/versions").body();
            JsonNode versionsB = b.get("/subjects/shared-value/versions").body();
            assertThat(versionsA).isEqualTo(versionsB);
            List<Integer> versions = new ArrayList<>();
            versionsA.forEach(v -> versions.add(v.asInt()));
            assertThat(versions).hasSize(50).doesNotHaveDuplicates();
            for (int v : versions) {
                JsonNode got = b.get("/subjects/shared-value/versions/" + v).body();
                sharedVersionSchema.put(v, got.get("schema").asText());
                assertThat(idOf).containsEntry(got.get("schema").asText(), got.get("id").asInt());
            }
            assertThat(new HashSet<>(sharedVersionSchema.values())).hasSize(50);

            // the same schema registered on the other server: the existing id, no new version
            String fromA = schema("a_own_3");
            assertThat(register(b, "a3-value", fromA)).isEqualTo(idOf.get(fromA));
            assertThat(b.get("/subjects/a3-value/versions").body().size()).isEqualTo(1);
        } finally {
            servers.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void killMinus9DuringRegistrationsKeepsAckedOnesAndNeverReusesAnId() throws Exception {
        Path data = dir.resolve("data");
        int kafkaPort = freePort();
        int registryPort = freePort();
        Map<String, Integer> acked = new ConcurrentHashMap<>(); // subject -> id
        Set<Integer> everSeen = new HashSet<>();
        Map<Integer, Integer> ackedVersions = new ConcurrentHashMap<>(); // version -> id
        Process serve = null;
        try {
            for (int cycle = 0; cycle <= KILL_CYCLES; cycle++) {
                serve =
                        ServeProcess.start(
                                dir.resolve("serve" + cycle + ".log"),
                                kafkaPort,
                                data,
                                ServeProcess.QUICK_START,
                                "schema.registry.listen=127.0.0.1:" + registryPort);
                RegistryHttp r = awaitUp(registryPort, serve);
                if (cycle == 0) {
                    assertThat(r.setCompatibility("versions-value", "NONE").status())
                            .isEqualTo(200);
                }
                assertSurvived(r, acked, ackedVersions);
                Set<Integer> before = new HashSet<>(everSeen);
                if (cycle == KILL_CYCLES) {
                    // after the last restart: fresh registrations only get fresh ids
                    for (int i = 0; i < 10; i++) {
                        int id = register(r, "after-" + i + "-value", schema("after_" + i));
                        assertThat(before).as("id %d handed out again", id).doesNotContain(id);
                    }
                    break;
                }
                Map<String, Integer> mine = new ConcurrentHashMap<>();
                AtomicBoolean killed = new AtomicBoolean();
                AtomicInteger acks = new AtomicInteger();
                List<Throwable> failures = new ArrayList<>();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    threads.add(
                            registrar(r, cycle, t, mine, ackedVersions, acks, killed, failures));
                }
                threads.forEach(Thread::start);
                Await.until(
                        ACKS_BEFORE_KILL + " registrations acknowledged",
                        () -> acks.get() >= ACKS_BEFORE_KILL,
                        Duration.ofSeconds(60));
                // The newest id at the moment of the kill belongs to a hard-deleted schema: a
                // registry that took max(id) + 1 after a restart would hand it out again.
                int doomed = register(r, "doomed-" + cycle + "-value", schema("doomed_" + cycle));
                assertThat(r.delete("/subjects/doomed-" + cycle + "-value").status())
                        .isEqualTo(200);
                assertThat(r.delete("/subjects/doomed-" + cycle + "-value?permanent=true").status())
                        .isEqualTo(200);
                everSeen.add(doomed);
                killed.set(true);
                serve.destroyForcibly().waitFor();
                for (Thread t : threads) {
                    t.join(Duration.ofSeconds(30).toMillis());
                }
                synchronized (failures) {
                    assertThat(failures).as("registrations failed before the kill").isEmpty();
                }
                assertThat(mine)
                        .as("registrations acknowledged in cycle %d", cycle)
                        .hasSizeGreaterThanOrEqualTo(ACKS_BEFORE_KILL);
                for (int id : mine.values()) {
                    assertThat(before).as("id %d handed out again", id).doesNotContain(id);
                }
                acked.putAll(mine);
                everSeen.addAll(mine.values());
                everSeen.addAll(ackedVersions.values());
            }
        } finally {
            if (serve != null) {
                serve.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * Registers new schemas on {@code r} until {@code killed}: each under a subject of its own, and
     * thread 0 also versions of {@code versions-value}; the acknowledged ones go to {@code mine}
     * and {@code versions}. A failed request after the kill ends the thread; one before it goes to
     * {@code failures}.
     */
    private static Thread registrar(
            RegistryHttp r,
            int cycle,
            int thread,
            Map<String, Integer> mine,
            Map<Integer, Integer> versions,
            AtomicInteger acks,
            AtomicBoolean killed,
            List<Throwable> failures) {
        return new Thread(
                () -> {
                    for (int i = 0; !killed.get(); i++) {
                        String name = "c" + cycle + "_t" + thread + "_" + i;
                        try {
                            mine.put(name + "-value", register(r, name + "-value", schema(name)));
                            if (thread == 0) {
                                RegistryHttp.Answer a =
                                        r.registerAvro("versions-value", schema("v_" + name));
                                if (a.status() == 200) {
                                    int id = a.body().get("id").asInt();
                                    JsonNode latest =
                                            r.get("/subjects/versions-value/versions/latest")
                                                    .body();
                                    if (latest.path("id").asInt() == id) {
                                        versions.put(latest.get("version").asInt(), id);
                                    }
                                }
                            }
                            acks.incrementAndGet();
                        } catch (IOException | RuntimeException e) {
                            if (!killed.get()) {
                                synchronized (failures) {
                                    failures.add(e);
                                }
                            }
                            return;
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "registrar-" + thread);
    }

    /** Every acknowledged registration is there after the restart, and no id serves twice. */
    private static void assertSurvived(
            RegistryHttp r, Map<String, Integer> acked, Map<Integer, Integer> versions)
            throws Exception {
        for (Map.Entry<String, Integer> e : acked.entrySet()) {
            RegistryHttp.Answer latest =
                    r.get("/subjects/" + RegistryHttp.enc(e.getKey()) + "/versions/latest");
            assertThat(latest.status()).as("%s: %s", e.getKey(), latest.body()).isEqualTo(200);
            assertThat(latest.body().get("id").asInt()).as(e.getKey()).isEqualTo(e.getValue());
        }
        for (Map.Entry<Integer, Integer> e : versions.entrySet()) {
            RegistryHttp.Answer v = r.get("/subjects/versions-value/versions/" + e.getKey());
            assertThat(v.status()).as("version %d: %s", e.getKey(), v.body()).isEqualTo(200);
            assertThat(v.body().get("id").asInt()).isEqualTo(e.getValue());
        }
        // every schema of this test is a distinct text, so an id belongs to one subject version
        Map<Integer, String> owner = new HashMap<>();
        for (JsonNode subject : r.get("/subjects").body()) {
            String s = subject.asText();
            for (JsonNode v : r.get("/subjects/" + RegistryHttp.enc(s) + "/versions").body()) {
                int id =
                        r.get("/subjects/" + RegistryHttp.enc(s) + "/versions/" + v.asInt())
                                .body()
                                .get("id")
                                .asInt();
                String was = owner.put(id, s + " v" + v.asInt());
                assertThat(was).as("id %d serves %s and %s v%d", id, was, s, v.asInt()).isNull();
            }
        }
    }

    private static int register(RegistryHttp r, String subject, String schema)
            throws IOException, InterruptedException {
        RegistryHttp.Answer a = r.registerAvro(subject, schema);
        if (a.status() != 200) {
            throw new IllegalStateException("register " + subject + ": " + a);
        }
        return a.body().get("id").asInt();
    }

    /** An Avro record schema of its own name: distinct names, distinct schemas. */
    private static String schema(String name) {
        return "{\"type\":\"record\",\"name\":\"R_"
                + name
                + "\",\"fields\":[{\"name\":\"f\",\"type\":\"string\"}]}";
    }

    private static RegistryHttp awaitUp(int port, Process serve) throws Exception {
        RegistryHttp r = new RegistryHttp(port);
        Await.until(
                "registry on port " + port,
                () -> {
                    assertThat(serve.isAlive()).as("serve alive").isTrue();
                    return r.up();
                },
                Duration.ofSeconds(60));
        return r;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
