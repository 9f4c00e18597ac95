package io.tierlog.iceberg;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** No tables: every topic is "not a table", nothing is pinned. */
enum DisabledTopicTables implements TopicTables {
    INSTANCE;

    @Override
    public boolean enabled(String topic) {
        return false;
    }

    @Override
    public void onCommitted(String topic, int partition) {}

    @Override
    public SyncResult sync(String topic) {
        return SyncResult.skipped(topic, "iceberg is disabled");
    }

    @Override
    public List<SyncResult> syncAll() {
        return List.of();
    }

    @Override
    public Optional<TableState> state(String topic) {
        return Optional.empty();
    }

    @Override
    public boolean pinned(String key) {
        return false;
    }

    @Override
    public void dropTable(String topic, UUID topicId) {}

    @Override
    public TableAudit audit(String topic) {
        return new TableAudit(
                topic,
                "",
                false,
                Optional.of("iceberg is disabled"),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());
    }

    @Override
    public void addListener(RegistrationListener listener) {}

    @Override
    public void close() {}
}
