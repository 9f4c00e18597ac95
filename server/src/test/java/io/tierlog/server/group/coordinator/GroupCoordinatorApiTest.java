package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The coordinator knows no wire types: nothing of its public API (methods, constructors, record
 * components of its value types) mentions Kafka's request or message classes, or the server's
 * handlers, so the group protocol's versions stay the handlers' business.
 */
class GroupCoordinatorApiTest {
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
            for (Type t : e.getGenericExceptionTypes()) {
                out.add(c.getSimpleName() + "." + e.getName() + " throws " + t.getTypeName());
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
    void noPublicSignatureOfTheCoordinatorUsesAWireOrServerType() {
        List<String> signatures = new ArrayList<>(publicSignatures(GroupCoordinator.class));
        signatures.addAll(publicSignatures(OffsetStore.class));

        assertThat(signatures).as("the check sees the coordinator's API").isNotEmpty();
        assertThat(signatures).anySatisfy(s -> assertThat(s).contains("join param java.util.List"));
        for (String forbidden : FORBIDDEN) {
            assertThat(signatures).noneSatisfy(s -> assertThat(s).contains(forbidden));
        }
    }
}
