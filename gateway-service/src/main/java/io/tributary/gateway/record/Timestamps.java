package io.tributary.gateway.record;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;

/** Timestamps as the API reads them (RFC 3339 or epoch milliseconds) and writes them (RFC 3339, UTC). */
public final class Timestamps {

    private Timestamps() {}

    /** Epoch milliseconds of {@code text}: RFC 3339 with an offset, or a number of epoch milliseconds. */
    public static OptionalLong parse(String text) {
        String t = text.strip();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            try {
                return OptionalLong.of(Long.parseLong(t));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(OffsetDateTime.parse(t, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant()
                    .toEpochMilli());
        } catch (DateTimeParseException | ArithmeticException e) {
            return OptionalLong.empty();
        }
    }

    /** RFC 3339 in UTC ({@code 2026-11-29T21:00:00.123Z}); empty for Kafka's "no timestamp" (negative). */
    public static Optional<String> format(long epochMs) {
        return epochMs < 0
                ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(epochMs).toString());
    }
}
