package io.tributary.gateway.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision rule for claims of one key, record by record as a replica folds them. */
class KeyHistoryTest {

    private static final Duration TTL = Duration.ofHours(24);
    private static final Duration CLAIM_TIMEOUT = Duration.ofMinutes(2);
    private static final long T0 = 1_800_000_000_000L;

    private final KeyHistory h = new KeyHistory(TTL, CLAIM_TIMEOUT);

    private static IdempotencyRecord.Result result(long claimOffset, long claimTs, String digest, String body) {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return new IdempotencyRecord.Result(
                claimOffset,
                claimTs,
                digest,
                200,
                "application/json",
                Optional.of(bytes),
                RequestDigest.sha256Hex(bytes),
                bytes.length);
    }

    @Test
    void theFirstClaimExecutes() {
        assertThat(h.claim(10, T0, "a")).isEqualTo(new Decision.Execute(false));
    }

    @Test
    void theSameRequestAfterTheResultReplaysIt() {
        h.claim(10, T0, "a");
        IdempotencyRecord.Result r = result(10, T0, "a", "{\"results\":[]}");
        h.result(11, r);

        assertThat(h.claim(12, T0 + 1000, "a")).isEqualTo(new Decision.Replay(r));
        assertThat(h.claim(13, T0 + TTL.toMillis() - 1, "a")).isEqualTo(new Decision.Replay(r));
    }

    @Test
    void anotherRequestWithTheKeyIsReusedWhetherTheFirstIsDoneOrNot() {
        h.claim(10, T0, "a");
        assertThat(h.claim(11, T0 + 1, "b")).isEqualTo(new Decision.Reused());
        h.result(12, result(10, T0, "a", "{}"));
        assertThat(h.claim(13, T0 + 2, "b")).isEqualTo(new Decision.Reused());
    }

    @Test
    void theSameRequestWithoutAResultIsInProgressForTheRestOfTheClaimTimeout() {
        h.claim(10, T0, "a");

        assertThat(h.claim(11, T0 + 30_000, "a")).isEqualTo(new Decision.InProgress(Duration.ofSeconds(90)));
        assertThat(h.claim(12, T0 + CLAIM_TIMEOUT.toMillis() - 1, "a"))
                .isEqualTo(new Decision.InProgress(Duration.ofMillis(1)));
    }

    @Test
    void afterTheClaimTimeoutTheNextClaimTakesOverAndALateResultOfTheOldClaimIsIgnored() {
        h.claim(10, T0, "a");
        assertThat(h.claim(11, T0 + CLAIM_TIMEOUT.toMillis(), "a")).isEqualTo(new Decision.Execute(true));

        h.result(12, result(10, T0, "a", "old")); // the presumed-dead replica finished after all
        assertThat(h.claim(13, T0 + CLAIM_TIMEOUT.toMillis() + 1, "a")).isInstanceOf(Decision.InProgress.class);
        IdempotencyRecord.Result mine = result(11, T0 + CLAIM_TIMEOUT.toMillis(), "a", "new");
        h.result(14, mine);
        assertThat(h.claim(15, T0 + CLAIM_TIMEOUT.toMillis() + 2, "a")).isEqualTo(new Decision.Replay(mine));
    }

    @Test
    void afterTheTtlTheKeyStartsOver() {
        h.claim(10, T0, "a");
        h.result(11, result(10, T0, "a", "{}"));

        assertThat(h.claim(12, T0 + TTL.toMillis(), "b")).isEqualTo(new Decision.Execute(false));
        assertThat(h.claim(13, T0 + TTL.toMillis() + 1, "a")).isEqualTo(new Decision.Reused());
    }

    @Test
    void aReleaseFreesTheKeyButALateReleaseOfAClaimTakenOverDoesNot() {
        h.claim(10, T0, "a");
        h.release(11, new IdempotencyRecord.Release(10, T0, "a", 503));
        assertThat(h.claim(12, T0 + 1, "a")).isEqualTo(new Decision.Execute(false));

        assertThat(h.claim(13, T0 + CLAIM_TIMEOUT.toMillis() + 1, "a")).isEqualTo(new Decision.Execute(true));
        h.release(14, new IdempotencyRecord.Release(12, T0 + 1, "a", 503));
        assertThat(h.claim(15, T0 + CLAIM_TIMEOUT.toMillis() + 2, "a")).isInstanceOf(Decision.InProgress.class);
    }

    @Test
    void aResultOfAClaimBeforeWhatTheReaderSawMakesThatClaimTheWinner() {
        // the reader started between the winning claim (offset 10) and later claims of the same key
        assertThat(h.claim(20, T0 + 5, "a")).isEqualTo(new Decision.Execute(false));
        IdempotencyRecord.Result r = result(10, T0, "a", "{}");
        h.result(21, r);

        assertThat(h.claim(22, T0 + 6, "a")).isEqualTo(new Decision.Replay(r));
        assertThat(h.claim(23, T0 + 7, "b")).isEqualTo(new Decision.Reused());
    }

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long s = 1; s <= 200; s++) {
            seeds.add(s * 0x9E3779B97F4A7C15L);
        }
        return seeds;
    }

    /**
     * Random interleavings of attempts of a few requests under one key, from replicas that may die
     * between claim and result, with the clock moving by random steps: the request executes at most
     * once per key lifetime except after a takeover or a release, and a replay is always of the
     * current winner's result for the same request.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void executesAtMostOncePerLifetimeAndReplaysOnlyTheWinnersResult(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        KeyHistory fold = new KeyHistory(TTL, CLAIM_TIMEOUT);
        long now = T0;
        long offset = 0;
        String[] digests = {"a", "b", "c"};
        Map<Long, String> pending = new HashMap<>(); // executed claims without result: offset -> digest
        Map<Long, Long> pendingTs = new HashMap<>();
        long lastExecuteTs = Long.MIN_VALUE / 2;
        boolean freed = true;
        IdempotencyRecord.Result current = null;
        long currentClaim = -1;
        String currentDigest = null;
        for (int step = 0; step < 300; step++) {
            now += switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextLong(1_000);
                case 2 -> random.nextLong(CLAIM_TIMEOUT.toMillis() * 2);
                default -> random.nextInt(20) == 0 ? TTL.toMillis() : 10;
            };
            int action = random.nextInt(10);
            if (action < 6 || pending.isEmpty()) {
                String digest = digests[random.nextInt(digests.length)];
                long at = offset++;
                Decision d = fold.claim(at, now, digest);
                String why = "seed " + seed + " step " + step + " decision " + d;
                switch (d) {
                    case Decision.Execute e -> {
                        if (!e.takeover()) {
                            assertThat(freed || now - lastExecuteTs >= TTL.toMillis())
                                    .as(why)
                                    .isTrue();
                        }
                        lastExecuteTs = now;
                        freed = false;
                        pending.put(at, digest);
                        pendingTs.put(at, now);
                        currentClaim = at;
                        currentDigest = digest;
                        current = null;
                    }
                    case Decision.Replay r -> {
                        assertThat(r.result()).as(why).isSameAs(current);
                        assertThat(r.result().claimOffset()).as(why).isEqualTo(currentClaim);
                        assertThat(digest).as(why).isEqualTo(currentDigest);
                    }
                    case Decision.Reused r -> assertThat(digest).as(why).isNotEqualTo(currentDigest);
                    case Decision.InProgress p -> {
                        assertThat(current).as(why).isNull();
                        assertThat(digest).as(why).isEqualTo(currentDigest);
                    }
                }
            } else {
                // one executed claim finishes: a result, or a release when every record failed
                long claim = pending.keySet().stream().toList().get(random.nextInt(pending.size()));
                String digest = pending.remove(claim);
                long claimTs = pendingTs.remove(claim);
                if (random.nextInt(4) == 0) {
                    fold.release(offset++, new IdempotencyRecord.Release(claim, claimTs, digest, 503));
                    if (claim == currentClaim && current == null) {
                        freed = true;
                        currentDigest = null;
                    }
                } else {
                    IdempotencyRecord.Result r = result(claim, claimTs, digest, "r" + claim);
                    fold.result(offset++, r);
                    if (claim == currentClaim && current == null) {
                        current = r;
                    }
                }
            }
        }
    }
}
