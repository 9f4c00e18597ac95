package io.tierlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.server.group.coordinator.OffsetStore.Durability;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** offsets.durability follows log.durability unless set, and refuses other values. */
class OffsetsDurabilityOptionTest {
    @Test
    void emptyFollowsLogDurabilityAndAnExplicitValueWins() {
        assertThat(ServerOptions.offsetsDurability(Config.empty()))
                .isEqualTo(Durability.PAGE_CACHE);
        assertThat(ServerOptions.offsetsDurability(Config.of(Map.of("log.durability", "fsync"))))
                .isEqualTo(Durability.FSYNC);
        assertThat(
                        ServerOptions.offsetsDurability(
                                Config.of(
                                        Map.of(
                                                "log.durability",
                                                "fsync",
                                                "offsets.durability",
                                                "page_cache"))))
                .isEqualTo(Durability.PAGE_CACHE);
        assertThat(
                        ServerOptions.offsetsDurability(
                                Config.of(Map.of("offsets.durability", "fsync"))))
                .isEqualTo(Durability.FSYNC);
    }

    @Test
    void anUnknownValueIsRefused() {
        assertThatThrownBy(
                        () ->
                                Config.of(Map.of("offsets.durability", "sometimes"))
                                        .validate(ServerOptions.all()))
                .hasMessageContaining("offsets.durability");
    }
}
