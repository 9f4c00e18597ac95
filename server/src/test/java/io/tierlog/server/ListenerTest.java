package io.tierlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import org.junit.jupiter.api.Test;

/** Listener strings parse as Kafka's do, and bad ones fail at startup with the key named. */
class ListenerTest {
    @Test
    void parsesKafkaListenerSyntax() {
        assertThat(Listener.parseList("PLAINTEXT://127.0.0.1:9092, PLAINTEXT://:0"))
                .containsExactly(
                        new Listener("PLAINTEXT", "127.0.0.1", 9092),
                        new Listener("PLAINTEXT", "", 0));
        assertThat(Listener.parse("plaintext://[::1]:1").host()).isEqualTo("::1");
        assertThat(Listener.parse("PLAINTEXT://0.0.0.0:1").wildcard()).isTrue();
    }

    @Test
    void badListenersAreRefusedWithTheKeyInTheMessage() {
        Config c = Config.of(java.util.Map.of("listeners", "SSL://host:1"));
        assertThatThrownBy(() -> c.get(ServerOptions.LISTENERS))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("listeners")
                .hasMessageContaining("PLAINTEXT");
        assertThatThrownBy(() -> Listener.parse("PLAINTEXT://host")).hasMessageContaining("port");
        assertThatThrownBy(() -> Listener.parse("PLAINTEXT://host:70000"))
                .hasMessageContaining("range");
    }
}
