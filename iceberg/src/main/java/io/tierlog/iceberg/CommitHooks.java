package io.tierlog.iceberg;

/**
 * Test seams around a table commit (after the diff, before and after {@code commit()}): a test
 * makes a second registrar commit in between, or throws as a lost response would. No-ops by
 * default. Called on the committing thread.
 */
class CommitHooks {
    static final CommitHooks NONE = new CommitHooks();

    void beforeCommit(String topic) {}

    void afterCommit(String topic) {}
}
