package io.tributary.coordinator.group;

import com.google.re2j.Pattern;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a group's target assignment is computed from and when: the topics its members subscribe to
 * (by name and by regular expression, resolved against the {@link TopicView}), the assignor its
 * members ask for, and the computation itself (by the group's {@link Assignor}) when the group epoch
 * is ahead of the assignment epoch.
 *
 * <p>Thread-safety: immutable itself; the groups it is given are used under the {@link
 * GroupCoordinator}'s lock.
 */
final class TargetAssigner {

    private static final Logger log = LoggerFactory.getLogger(TargetAssigner.class);

    private final TopicView topics;
    private final String defaultAssignor;

    TargetAssigner(TopicView topics, String defaultAssignor) {
        this.topics = Objects.requireNonNull(topics, "topics");
        this.defaultAssignor = Objects.requireNonNull(defaultAssignor, "defaultAssignor");
    }

    /** The assignor most members ask for (ties: the first by name); the default when none asks. */
    String chooseAssignor(ConsumerGroup group) {
        Map<String, Integer> votes = new TreeMap<>();
        for (ConsumerGroupMember member : group.members.values()) {
            if (member.serverAssignor != null) {
                votes.merge(member.serverAssignor, 1, Integer::sum);
            }
        }
        String best = defaultAssignor;
        int bestVotes = 0;
        for (Map.Entry<String, Integer> vote : votes.entrySet()) {
            if (vote.getValue() > bestVotes) {
                best = vote.getKey();
                bestVotes = vote.getValue();
            }
        }
        return best;
    }

    /** The existing topics a member subscribes to, by name; also added to {@code out}. */
    SortedMap<String, TopicView.TopicInfo> subscribedTopics(
            ConsumerGroupMember member, Map<String, TopicView.TopicInfo> out) {
        SortedMap<String, TopicView.TopicInfo> result = new TreeMap<>();
        for (String name : member.subscribedTopicNames) {
            topics.byName(name).ifPresent(info -> result.put(name, info));
        }
        if (member.regex != null) {
            for (TopicView.TopicInfo info : topics.all()) {
                if (member.regex.matches(info.name())) {
                    result.put(info.name(), info);
                }
            }
        }
        out.putAll(result);
        return result;
    }

    /** The existing topics the group's members subscribe to now, by name. */
    SortedMap<String, TopicView.TopicInfo> resolve(ConsumerGroup group) {
        // Each distinct name and regex is resolved once, however many members share it (members
        // of one group usually subscribe alike).
        Set<String> names = new TreeSet<>();
        Map<String, Pattern> regexes = new TreeMap<>();
        for (ConsumerGroupMember member : group.members.values()) {
            names.addAll(member.subscribedTopicNames);
            if (member.regex != null) {
                regexes.putIfAbsent(member.subscribedTopicRegex, member.regex);
            }
        }
        SortedMap<String, TopicView.TopicInfo> now = new TreeMap<>();
        for (String name : names) {
            topics.byName(name).ifPresent(info -> now.put(name, info));
        }
        if (!regexes.isEmpty()) {
            for (TopicView.TopicInfo info : topics.all()) {
                for (Pattern regex : regexes.values()) {
                    if (regex.matches(info.name())) {
                        now.put(info.name(), info);
                        break;
                    }
                }
            }
        }
        return now;
    }

    /** Bumps the group epoch when a subscribed topic appeared, disappeared or changed. */
    void refreshTopics(ConsumerGroup group) {
        SortedMap<String, TopicView.TopicInfo> now = resolve(group);
        if (!now.equals(group.subscribedTopics)) {
            group.subscribedTopics(now);
            group.bump("subscribed topics changed");
        }
    }

    /**
     * After a member's request changed the group: the assignor most members ask for (a change bumps
     * the epoch), the subscribed topics now, and the target assignment if the epoch moved on. One
     * request moves the epoch on once at most, as Kafka's (a member joining with a subscription to
     * topics new to the group is one bump, not three).
     *
     * @param epochBefore the group epoch before the request
     */
    void update(ConsumerGroup group, int epochBefore) {
        String assignor = chooseAssignor(group);
        if (!assignor.equals(group.assignor)) {
            group.assignor = assignor;
            group.bump("assignor " + assignor);
        }
        refreshTopics(group);
        group.groupEpoch = Math.min(group.groupEpoch, epochBefore + 1);
        computeTargetIfNeeded(group);
    }

    /** Computes the target assignment again when the group epoch is ahead of the assignment epoch. */
    void computeTargetIfNeeded(ConsumerGroup group) {
        if (group.groupEpoch <= group.assignmentEpoch) {
            return;
        }
        SortedMap<String, Assignor.MemberSpec> specs = new TreeMap<>();
        SortedMap<UUID, Integer> counts = new TreeMap<>();
        for (ConsumerGroupMember member : group.members.values()) {
            SortedMap<String, TopicView.TopicInfo> subscribed = subscribedTopics(member, new HashMap<>());
            Set<UUID> ids = new HashSet<>();
            for (TopicView.TopicInfo info : subscribed.values()) {
                ids.add(info.id());
                counts.put(info.id(), info.partitionCount());
            }
            specs.put(
                    member.memberId,
                    new Assignor.MemberSpec(ids, group.target.getOrDefault(member.memberId, new TreeSet<>())));
        }
        Assignor assignor = Assignors.byName(group.assignor).orElseThrow();
        group.target = new TreeMap<>(assignor.assign(new Assignor.Spec(specs, counts)));
        group.assignmentEpoch = group.groupEpoch;
        group.targetChanged = true;
        log.debug(
                "group {}: target assignment at epoch {} by {}", group.groupId, group.assignmentEpoch, group.assignor);
    }
}
