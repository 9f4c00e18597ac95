package io.tierlog.server.cli;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigKeys;
import io.tierlog.common.ConfigOption;
import io.tierlog.engine.Tools;
import io.tierlog.server.ServerOptions;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/**
 * {@code tierlog config-docs}: prints the Markdown reference table of every option of every module
 * (the README's table is generated from it). {@link #modules()} is the one list of option sets,
 * also the one the CLI checks setting keys against ({@link #checkKeys}). Stateless.
 */
@Command(
        name = "config-docs",
        mixinStandardHelpOptions = true,
        description = "Print the Markdown reference of every setting (key | type | default | doc).")
public final class ConfigDocsCommand implements Callable<Integer> {

    /** Option lists by module, in documentation order; add new modules here. */
    static Map<String, List<ConfigOption<?>>> modules() {
        Map<String, List<ConfigOption<?>>> m = new LinkedHashMap<>();
        m.put("server", ServerOptions.all());
        m.putAll(Tools.optionsByModule());
        return m;
    }

    @Override
    public Integer call() {
        print(System.out);
        return 0;
    }

    static void print(PrintStream out) {
        // A key shared by modules (data.dir) is documented once, where it first appears.
        Set<String> printed = new HashSet<>();
        for (Map.Entry<String, List<ConfigOption<?>>> e : modules().entrySet()) {
            out.println("### " + e.getKey());
            out.println();
            out.println("| key | type | default | doc |");
            out.println("|---|---|---|---|");
            for (ConfigOption<?> o : e.getValue()) {
                if (!printed.add(o.key())) {
                    continue;
                }
                out.println(
                        "| `"
                                + o.key()
                                + "` | "
                                + o.type()
                                + " | "
                                + (o.defaultString().isEmpty() ? "" : "`" + o.defaultString() + "`")
                                + " | "
                                + o.doc().replace("|", "\\|")
                                + " |");
            }
            out.println();
        }
        out.flush();
    }

    /** Every option of every module (a key shared by modules appears more than once). */
    static List<ConfigOption<?>> allOptions() {
        List<ConfigOption<?>> all = new java.util.ArrayList<>();
        modules().values().forEach(all::addAll);
        return all;
    }

    /**
     * Fails on a key no module declares, naming the closest declared key; warns about each key of
     * Apache Kafka's that has no effect here ({@link ConfigKeys}).
     *
     * @param what where the settings come from ({@code --set}, {@code --config FILE})
     * @throws io.tierlog.common.ConfigException for an unknown key
     */
    static void checkKeys(Config config, String what) {
        ConfigKeys.requireKnown(
                config,
                allOptions(),
                what,
                w -> LoggerFactory.getLogger("io.tierlog.config").warn("{}", w));
    }
}
