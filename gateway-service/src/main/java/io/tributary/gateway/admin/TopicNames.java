package io.tributary.gateway.admin;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import java.util.regex.Pattern;

/** Kafka's rules for topic names: 1 to 249 characters of {@code [A-Za-z0-9._-]}, not {@code .} or {@code ..}. */
public final class TopicNames {

    /** The longest name Kafka accepts (its log directories append a partition number and more). */
    public static final int MAX_LENGTH = 249;

    private static final Pattern LEGAL = Pattern.compile("[A-Za-z0-9._-]+");

    private TopicNames() {}

    /** {@code name}, when it is a legal topic name; otherwise 400 {@code invalid-topic-name}. */
    public static String requireValid(String name) {
        String problem = null;
        if (name == null || name.isEmpty()) {
            problem = "A topic name must not be empty.";
        } else if (name.equals(".") || name.equals("..")) {
            problem = "A topic name must not be '.' or '..'.";
        } else if (name.length() > MAX_LENGTH) {
            problem = "A topic name has at most %d characters; this one has %d.".formatted(MAX_LENGTH, name.length());
        } else if (!LEGAL.matcher(name).matches()) {
            problem = "A topic name has only the characters A-Z, a-z, 0-9, '.', '_' and '-'.";
        }
        if (problem != null) {
            throw new ProblemException(ProblemType.INVALID_TOPIC_NAME, problem);
        }
        return name;
    }
}
