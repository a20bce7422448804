package io.tributary.gateway.record;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Timestamps as the API reads them (RFC 3339 or epoch milliseconds) and writes them (RFC 3339, UTC).
 * Thread-safe.
 */
public final class Timestamps {

    /** Written once per record produced and per event streamed: the last second's text is kept. */
    private record Second(long epochSecond, String text) {}

    /** Epoch seconds of 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: four-digit years. */
    private static final long FOUR_DIGIT_YEARS_FROM = -62_135_596_800L;

    private static final long FOUR_DIGIT_YEARS_UNTIL = 253_402_300_800L;

    private static volatile Second last = new Second(0, "1970-01-01T00:00:00");

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
        return epochMs < 0 ? Optional.empty() : Optional.of(formatMillis(epochMs));
    }

    /**
     * The same text as {@code Instant.ofEpochMilli(epochMs).toString()} (no fraction when the
     * milliseconds are 0, else three digits), without a formatter for each call: the date and time
     * of the last second formatted are reused, as records produced or streamed together mostly share
     * their second.
     */
    static String formatMillis(long epochMs) {
        long second = Math.floorDiv(epochMs, 1000L);
        if (second < FOUR_DIGIT_YEARS_FROM || second >= FOUR_DIGIT_YEARS_UNTIL) {
            return Instant.ofEpochMilli(epochMs).toString();
        }
        Second cached = last;
        if (cached.epochSecond() != second) {
            String full = Instant.ofEpochSecond(second).toString(); // yyyy-MM-ddTHH:mm:ssZ
            cached = new Second(second, full.substring(0, full.length() - 1));
            last = cached;
        }
        int millis = (int) Math.floorMod(epochMs, 1000L);
        if (millis == 0) {
            return cached.text() + 'Z';
        }
        char[] fraction = {
            '.', (char) ('0' + millis / 100), (char) ('0' + millis / 10 % 10), (char) ('0' + millis % 10), 'Z'
        };
        return cached.text().concat(new String(fraction));
    }
}
