package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.consumer.ConsumerGroupMessages;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ListGroups (v0-v5): every group, with its state (v4+) and type (v5+, "classic" or "consumer").
 * The states filter (v4+) and types filter (v5+) match case-insensitively, as in Kafka; an empty
 * filter matches all. Thread-safe.
 */
final class ListGroupsHandler extends SyncApiHandler<ListGroupsRequestData> {
    private static final String CONSUMER = "consumer";
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;

    ListGroupsHandler(GroupCoordinator groups, ConsumerGroupCoordinator consumerGroups) {
        super(ApiKeys.LIST_GROUPS, 5, ListGroupsRequestData.class);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    @Override
    protected ApiMessage handle(RequestContext context, ListGroupsRequestData r, short version) {
        ListGroupsResponseData out = new ListGroupsResponseData();
        Set<String> states = lower(version >= 4 ? r.statesFilter() : null);
        Set<String> types = lower(version >= 5 ? r.typesFilter() : null);
        java.util.Map<String, ConsumerGroupMessages.GroupListing> consumer =
                new java.util.HashMap<>();
        for (ConsumerGroupMessages.GroupListing g : consumerGroups.list()) {
            consumer.put(g.groupId(), g);
        }
        if (types.isEmpty() || types.contains(CONSUMER)) {
            for (ConsumerGroupMessages.GroupListing g : consumer.values()) {
                if (states.isEmpty() || states.contains(g.state().toLowerCase(Locale.ROOT))) {
                    out.groups()
                            .add(
                                    new ListGroupsResponseData.ListedGroup()
                                            .setGroupId(g.groupId())
                                            .setProtocolType(CONSUMER)
                                            .setGroupState(g.state())
                                            .setGroupType(CONSUMER));
                }
            }
        }
        if (!types.isEmpty() && !types.contains(GroupCoordinator.CLASSIC)) {
            return out;
        }
        for (GroupCoordinator.GroupListing g : groups.listGroups()) {
            if (consumer.containsKey(g.groupId())) {
                continue; // only its offsets are with the classic coordinator
            }
            if (!states.isEmpty() && !states.contains(g.state().toLowerCase(Locale.ROOT))) {
                continue;
            }
            out.groups()
                    .add(
                            new ListGroupsResponseData.ListedGroup()
                                    .setGroupId(g.groupId())
                                    .setProtocolType(g.protocolType())
                                    .setGroupState(g.state())
                                    .setGroupType(GroupCoordinator.CLASSIC));
        }
        return out;
    }

    private static Set<String> lower(java.util.List<String> filter) {
        return filter == null
                ? Set.of()
                : filter.stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
}
