package io.tierlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.server.ServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI: settings precedence and the generated reference table. */
class TierlogCliTest {
    @TempDir Path dir;

    @Test
    void setOverridesConfigFileWhichOverridesDefaults() throws Exception {
        Path f = dir.resolve("server.properties");
        Files.writeString(f, "num.partitions=3\nnode.id=7\n");
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--config", f.toString(), "--set", "num.partitions=5");
        Config c = serve.config();
        assertThat(c.get(ServerOptions.NUM_PARTITIONS)).isEqualTo(5);
        assertThat(c.get(ServerOptions.NODE_ID)).isEqualTo(7);
        assertThat(c.get(ServerOptions.DATA_DIR)).isEqualTo("./data");
    }

    @Test
    void configDocsListsEveryOptionOfEveryModule() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConfigDocsCommand.print(new PrintStream(bytes, true));
        String out = bytes.toString();
        assertThat(out).contains("| key | type | default | doc |");
        ServerOptions.all().forEach(o -> assertThat(out).contains("`" + o.key() + "`"));
        HotTierOptions.all().forEach(o -> assertThat(out).contains("`" + o.key() + "`"));
    }

    @Test
    void everySubcommandIsRegistered() {
        assertThat(TierlogCli.commandLine().getSubcommands())
                .containsKeys("serve", "dump-segment", "config-docs");
    }
}
