package io.tributary.gateway.produce;

import io.tributary.gateway.problem.ProblemException;
import java.util.Locale;

/** The {@code acks} query parameter and the Kafka producer setting it selects. */
public enum Acks {
    ALL("all"),
    LEADER("1"),
    NONE("0");

    private final String kafkaValue;

    Acks(String kafkaValue) {
        this.kafkaValue = kafkaValue;
    }

    /** The producer's {@code acks} config value. */
    public String kafkaValue() {
        return kafkaValue;
    }

    /** The API's name: {@code all}, {@code leader} or {@code none}. */
    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses the query parameter; 400 {@code invalid-parameter} for anything else. */
    public static Acks parse(String text) {
        for (Acks a : values()) {
            if (a.apiName().equals(text)) {
                return a;
            }
        }
        throw ProblemException.invalidParameter("acks", "acks must be all, leader or none, got '" + text + "'.");
    }
}
