package io.tierlog.server.txn.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The transaction coordinator knows no wire types: neither its public API nor any source file of
 * the package mentions Kafka's request or message classes, Netty, or the server's handlers, so
 * protocol versions stay the handlers' business.
 */
class TransactionCoordinatorApiTest {
    private static final List<String> FORBIDDEN =
            List.of(
                    "org.apache.kafka.common.message.",
                    "org.apache.kafka.common.requests.",
                    "org.apache.kafka.common.protocol.ApiMessage",
                    "io.tierlog.server.dispatch.",
                    "io.tierlog.server.net.",
                    "io.netty.");

    private static List<String> publicSignatures(Class<?> c) {
        List<String> out = new ArrayList<>();
        List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
        members.addAll(List.of(c.getDeclaredConstructors()));
        for (Executable e : members) {
            if (!Modifier.isPublic(e.getModifiers())) {
                continue;
            }
            for (Type t : e.getGenericParameterTypes()) {
                out.add(c.getSimpleName() + "." + e.getName() + " param " + t.getTypeName());
            }
            if (e instanceof Method m) {
                out.add(
                        c.getSimpleName()
                                + "."
                                + e.getName()
                                + " returns "
                                + m.getGenericReturnType().getTypeName());
            }
        }
        for (Class<?> nested : c.getDeclaredClasses()) {
            if (Modifier.isPublic(nested.getModifiers())) {
                out.addAll(publicSignatures(nested));
            }
        }
        return out;
    }

    @Test
    void noPublicSignatureUsesAWireOrServerType() {
        List<String> s = new ArrayList<>();
        for (Class<?> c :
                List.of(
                        TransactionCoordinator.class,
                        TransactionConfig.class,
                        TransactionState.class,
                        TxnMarkerWriter.class,
                        TxnGroupCompleter.class,
                        ProducerIdSource.class)) {
            s.addAll(publicSignatures(c));
        }
        assertThat(s).anySatisfy(x -> assertThat(x).contains("endTxn returns"));
        for (String f : FORBIDDEN) {
            assertThat(s).noneSatisfy(x -> assertThat(x).contains(f));
        }
    }

    @Test
    void noSourceFileOfThePackageImportsAWireOrServerType() throws IOException {
        Path src = Path.of("src/main/java/io/tierlog/server/txn/coordinator");
        List<Path> files;
        try (Stream<Path> l = Files.list(src)) {
            files = l.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(files).hasSizeGreaterThan(5);
        for (Path p : files) {
            String text = Files.readString(p);
            for (String f : FORBIDDEN) {
                assertThat(text).as(p.toString()).doesNotContain(f);
            }
        }
    }
}
