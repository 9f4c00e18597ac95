package io.tierlog.server.group.consumer;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * One step of reconciling a member towards its target assignment, in the manner of Kafka's
 * CurrentAssignmentBuilder. The invariant it keeps: a member is only given a partition that no
 * other member owns (as assigned or pending revocation), so no partition is ever owned by two
 * members; a member that must give partitions up keeps its epoch and is handed only what it already
 * had minus those, until it reports (by its owned partitions) that it has revoked them. Stateless
 * and thread-safe.
 */
final class Reconciliation {
    private Reconciliation() {}

    /** The outcome: the member's next epoch, state, assigned and pending-revocation partitions. */
    record Step(int epoch, MemberState state, Assignment assigned, Assignment pendingRevocation) {}

    /**
     * @param epoch the member's epoch
     * @param state the member's state
     * @param assigned what it is assigned now
     * @param pendingRevocation what it was asked to revoke
     * @param owned what the member's heartbeat says it owns; null when the heartbeat did not say
     *     (then it is assumed to still own everything it was given)
     * @param targetEpoch the group's target assignment epoch
     * @param target the member's target assignment
     * @param ownedByOther whether a partition is owned by another member
     */
    static Step next(
            int epoch,
            MemberState state,
            Assignment assigned,
            Assignment pendingRevocation,
            Assignment owned,
            int targetEpoch,
            Assignment target,
            BiPredicate<String, Integer> ownedByOther) {
        switch (state) {
            case UNREVOKED_PARTITIONS:
                if (stillOwns(owned, pendingRevocation)) {
                    return new Step(epoch, state, assigned, pendingRevocation);
                }
                // Revoked: move on to the next epoch and towards the latest target.
                return compute(
                        Math.min(epoch + 1, targetEpoch),
                        assigned,
                        owned,
                        targetEpoch,
                        target,
                        ownedByOther);
            case UNRELEASED_PARTITIONS:
            case STABLE:
            default:
                if (state == MemberState.STABLE
                        && epoch == targetEpoch
                        && assigned.equals(target)) {
                    return new Step(epoch, state, assigned, pendingRevocation);
                }
                return compute(epoch, assigned, owned, targetEpoch, target, ownedByOther);
        }
    }

    private static Step compute(
            int epoch,
            Assignment assigned,
            Assignment owned,
            int targetEpoch,
            Assignment target,
            BiPredicate<String, Integer> ownedByOther) {
        Assignment keep = assigned.intersect(target);
        Assignment revoke = assigned.minus(target);
        Map<String, TreeSet<Integer>> free = new TreeMap<>();
        boolean unreleased = false;
        for (Map.Entry<String, java.util.SortedSet<Integer>> t :
                target.minus(keep).partitions().entrySet()) {
            for (int p : t.getValue()) {
                if (ownedByOther.test(t.getKey(), p)) {
                    unreleased = true;
                } else {
                    free.computeIfAbsent(t.getKey(), k -> new TreeSet<>()).add(p);
                }
            }
        }
        if (!revoke.isEmpty() && stillOwns(owned, revoke)) {
            return new Step(epoch, MemberState.UNREVOKED_PARTITIONS, keep, revoke);
        }
        return new Step(
                targetEpoch,
                unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
                keep.union(Assignment.of(free)),
                Assignment.EMPTY);
    }

    private static boolean stillOwns(Assignment owned, Assignment revoke) {
        return owned == null || owned.overlaps(revoke);
    }
}
