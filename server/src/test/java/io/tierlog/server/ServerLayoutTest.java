package io.tierlog.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.dispatch.ApiHandler;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's layout rules, checked on the compiled classes: API areas never reach into each
 * other, handlers are package-private behind their area's entry, dispatch knows neither the network
 * nor any area, and the group coordinator uses no wire type anywhere (not only in signatures).
 *
 * <p>References are found in each class file's constant pool, where every class a class uses is
 * named ({@code io/tierlog/server/produce/...}); a byte search is enough for that.
 */
class ServerLayoutTest {
    private static final List<String> AREAS =
            List.of("produce", "fetch", "metadata", "admin", "group", "storage", "txn");
    private static final String ROOT = "io/tierlog/server/";
    private static Map<String, String> classFiles; // internal name -> constant pool as text

    @BeforeAll
    static void load() throws IOException, URISyntaxException {
        Path classes =
                Path.of(
                        ApiHandlers.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        classFiles = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes.resolve(ROOT))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(f).toString().replace('\\', '/');
                classFiles.put(
                        name.substring(0, name.length() - ".class".length()),
                        new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(classFiles).as("compiled server classes found").hasSizeGreaterThan(40);
    }

    /** The package of an internal class name, relative to io/tierlog/server ("" for the root). */
    private static String pkg(String internalName) {
        String rel = internalName.substring(ROOT.length());
        int slash = rel.lastIndexOf('/');
        return slash < 0 ? "" : rel.substring(0, slash);
    }

    private static String area(String internalName) {
        String p = pkg(internalName);
        for (String a : AREAS) {
            if (p.equals(a) || p.startsWith(a + "/")) {
                return a;
            }
        }
        return null;
    }

    private static List<String> violations(String fromPackagePrefix, List<String> forbidden) {
        List<String> out = new ArrayList<>();
        classFiles.forEach(
                (name, pool) -> {
                    String p = pkg(name);
                    if (!(p.equals(fromPackagePrefix) || p.startsWith(fromPackagePrefix + "/"))) {
                        return;
                    }
                    for (String f : forbidden) {
                        if (pool.contains(f)) {
                            out.add(name + " uses " + f);
                        }
                    }
                });
        return out;
    }

    @Test
    void apiAreasNeverUseEachOther() {
        List<String> found = new ArrayList<>();
        for (String a : AREAS) {
            List<String> others = new ArrayList<>();
            for (String b : AREAS) {
                if (!b.equals(a)) {
                    others.add(ROOT + b + "/");
                }
            }
            found.addAll(violations(a, others));
        }
        assertThat(found).isEmpty();
    }

    @Test
    void dispatchKnowsNeitherTheNetworkNorAnyArea() {
        List<String> forbidden = new ArrayList<>(List.of(ROOT + "net/"));
        AREAS.forEach(a -> forbidden.add(ROOT + a + "/"));
        assertThat(violations("dispatch", forbidden)).isEmpty();
    }

    @Test
    void theGroupCoordinatorsUseNoWireTypes() {
        List<String> wire =
                List.of(
                        "org/apache/kafka/common/message/",
                        "org/apache/kafka/common/requests/",
                        ROOT + "dispatch/",
                        ROOT + "net/");
        assertThat(violations("group/coordinator", wire)).as("classic").isEmpty();
        assertThat(violations("group/consumer", wire)).as("KIP-848").isEmpty();
        assertThat(violations("txn/coordinator", wire)).as("transactions").isEmpty();
    }

    @Test
    void everyServedHandlerIsPackagePrivateInAnApiArea() throws Exception {
        List<String> handlers = new ArrayList<>();
        for (String name : classFiles.keySet()) {
            Class<?> c = Class.forName(name.replace('/', '.'), false, getClass().getClassLoader());
            if (ApiHandler.class.isAssignableFrom(c)
                    && !c.isInterface()
                    && !Modifier.isAbstract(c.getModifiers())) {
                handlers.add(name);
                assertThat(area(name)).as("%s lives in an API area", name).isNotNull();
                assertThat(Modifier.isPublic(c.getModifiers()))
                        .as("%s is package-private", name)
                        .isFalse();
            }
        }
        assertThat(handlers).as("handlers found").hasSizeGreaterThanOrEqualTo(16);
    }
}
