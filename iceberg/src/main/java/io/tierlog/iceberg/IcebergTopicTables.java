package io.tierlog.iceberg;

/** The registrar (contract placeholder: the implementation replaces this class). */
final class IcebergTopicTables {
    private IcebergTopicTables() {}

    static TopicTables open(TableSetup setup, boolean readOnly) {
        throw new UnsupportedOperationException("iceberg tables are not implemented yet");
    }
}
