package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.iceberg.TableState;
import io.tierlog.iceberg.TopicTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The tables {@code inspect} shows: each topic's that is a table, by topic name. Stateless. */
final class TableStates {
    private TableStates() {}

    static List<TableState> of(TopicTables tables, Catalog catalog, Optional<String> topic) {
        List<TableState> out = new ArrayList<>();
        for (TopicRecord t : catalog.topics()) {
            if (topic.isPresent() && !topic.get().equals(t.name())) {
                continue;
            }
            tables.state(t.name()).ifPresent(out::add);
        }
        out.sort(java.util.Comparator.comparing(TableState::topic));
        return out;
    }
}
