package io.tierlog.server.txn.coordinator;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A transaction's state at the coordinator, with Kafka's ids (as in {@code TransactionLogValue})
 * and names (as ListTransactions and DescribeTransactions show them, and as the admin client's
 * {@code TransactionState} parses them). The valid previous states are Kafka 4.4's.
 *
 * <p>Immutable; thread-safe.
 */
public enum TransactionState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final byte id;
    private final String displayName;

    TransactionState(int id, String displayName) {
        this.id = (byte) id;
        this.displayName = displayName;
    }

    /** Kafka's id of the state, as journaled. */
    public byte id() {
        return id;
    }

    /** Kafka's name of the state ("Ongoing", "PrepareCommit", ...). */
    public String displayName() {
        return displayName;
    }

    /** The state with Kafka's id {@code id}. */
    public static TransactionState fromId(int id) {
        for (TransactionState s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }

    /** The state with Kafka's name {@code name} (case-insensitive), if any. */
    public static Optional<TransactionState> fromName(String name) {
        for (TransactionState s : values()) {
            if (s.displayName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** States a transaction may move to this state from (Kafka 4.4's VALID_PREVIOUS_STATES). */
    public Set<TransactionState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            // TV2 may abort a transaction that added no partition (epoch bump, no markers).
            case PREPARE_ABORT ->
                    EnumSet.of(
                            ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
            case DEAD -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_EPOCH_FENCE -> EnumSet.of(ONGOING);
        };
    }

    /** True for PrepareCommit and PrepareAbort: markers are being written. */
    public boolean isPrepare() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** True for Empty, CompleteCommit and CompleteAbort: no transaction is open. */
    public boolean isIdle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }
}
