package io.tributary.coordinator.group;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.Errors;

/**
 * Checks a ConsumerGroupHeartbeat before it changes anything, as Kafka's group coordinator does
 * (INVALID_REQUEST with Kafka's messages, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION), and the
 * bounds of {@link GroupConfig} (id lengths, subscribed topics, regex length); compiles
 * subscription regexes (RE2/J: linear time).
 *
 * <p>Thread-safety: immutable.
 */
final class HeartbeatValidator {

    private final GroupConfig config;

    HeartbeatValidator(GroupConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * @throws GroupException INVALID_REQUEST, UNSUPPORTED_ASSIGNOR or INVALID_REGULAR_EXPRESSION
     */
    void validate(HeartbeatRequest request) {
        if (request.groupId().isEmpty()) {
            throw invalid("GroupId can't be empty");
        }
        checkLength("GroupId", request.groupId());
        checkLength("MemberId", request.memberId());
        request.instanceId().ifPresent(id -> checkLength("InstanceId", id));
        request.rackId().ifPresent(id -> checkLength("RackId", id));
        if (request.instanceId().filter(String::isEmpty).isPresent()) {
            throw invalid("InstanceId can't be empty");
        }
        if (request.rackId().filter(String::isEmpty).isPresent()) {
            throw invalid("RackId can't be empty");
        }
        if (request.memberId().isEmpty()) {
            throw invalid("MemberId can't be empty");
        }
        int epoch = request.memberEpoch();
        if (epoch < HeartbeatRequest.STATIC_LEAVE_EPOCH) {
            throw invalid("MemberEpoch " + epoch + " is invalid");
        }
        if (epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH && request.instanceId().isEmpty()) {
            throw invalid("InstanceId can't be null when MemberEpoch is -2");
        }
        if (epoch == HeartbeatRequest.JOIN_EPOCH) {
            if (request.rebalanceTimeoutMs() == -1) {
                throw invalid("RebalanceTimeoutMs must be provided in first request");
            }
            if (request.ownedPartitions().isEmpty()
                    || !request.ownedPartitions().get().isEmpty()) {
                throw invalid("TopicPartitions must be empty when (re-)joining");
            }
            if (request.subscribedTopicNames().isEmpty()
                    && request.subscribedTopicRegex().isEmpty()) {
                throw invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request");
            }
        }
        if (request.rebalanceTimeoutMs() < -1) {
            throw invalid("RebalanceTimeoutMs must be -1 or more");
        }
        request.subscribedTopicNames().ifPresent(names -> {
            if (names.size() > config.maxSubscribedTopics()) {
                throw invalid("at most " + config.maxSubscribedTopics()
                        + " subscribed topic names (tributary.coordinator.groups.max-subscribed-topics)");
            }
        });
        request.subscribedTopicRegex().ifPresent(this::compile);
        request.serverAssignor().ifPresent(name -> {
            if (Assignors.byName(name).isEmpty()) {
                throw new GroupException(
                        Errors.UNSUPPORTED_ASSIGNOR,
                        "ServerAssignor " + name + " is not supported; supported: " + new TreeSet<>(Assignors.NAMES));
            }
        });
    }

    private void checkLength(String field, String value) {
        MemberRules.checkIdLength(config, field, value);
    }

    private static GroupException invalid(String message) {
        return MemberRules.invalid(message);
    }

    /**
     * The compiled regex, or null for the empty string (which clears a regex subscription).
     *
     * @throws GroupException INVALID_REGULAR_EXPRESSION
     */
    Pattern compile(String regex) {
        if (regex.isEmpty()) {
            return null;
        }
        if (regex.length() > config.maxRegexLength()) {
            throw new GroupException(
                    Errors.INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex is longer than " + config.maxRegexLength()
                            + " characters (tributary.coordinator.groups.max-regex-length)");
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new GroupException(
                    Errors.INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex " + regex + " is not a valid RE2 regular expression: " + e.getMessage());
        }
    }
}
