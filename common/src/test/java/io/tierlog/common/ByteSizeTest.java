package io.tierlog.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {
    @Test
    void parseKnowsBinaryAndDecimalUnitsInAnyCase() {
        assertThat(ByteSize.parse("1048576").bytes()).isEqualTo(1048576);
        assertThat(ByteSize.parse("7B").bytes()).isEqualTo(7);
        assertThat(ByteSize.parse("512KiB").bytes()).isEqualTo(512 * 1024);
        assertThat(ByteSize.parse("2k").bytes()).isEqualTo(2048);
        assertThat(ByteSize.parse("3KB").bytes()).isEqualTo(3000);
        assertThat(ByteSize.parse("64 MiB").bytes()).isEqualTo(64L << 20);
        assertThat(ByteSize.parse("5mb").bytes()).isEqualTo(5_000_000);
        assertThat(ByteSize.parse("1GiB").bytes()).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("1g").bytes()).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("2GB").bytes()).isEqualTo(2_000_000_000L);
        assertThat(ByteSize.parse("1TiB").bytes()).isEqualTo(1L << 40);
        assertThat(ByteSize.parse("1t").bytes()).isEqualTo(1L << 40);
        assertThat(ByteSize.parse("1_000tb").bytes()).isEqualTo(1_000_000_000_000_000L);
    }

    @Test
    void parseRejectsAnUnknownUnitNamingIt() {
        assertThatThrownBy(() -> ByteSize.parse("10 parsecs"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown unit 'parsecs'");
    }

    @Test
    void parseRejectsAnOverflowInsteadOfWrapping() {
        assertThatThrownBy(() -> ByteSize.parse("9000000TiB"))
                .isInstanceOf(ArithmeticException.class);
    }
}
