package io.tributary.systemtests.kafka;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.common.KafkaFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential ({@link Differential}): SCRAM credentials managed through the admin client
 * ({@code alterUserScramCredentials}, {@code describeUserScramCredentials}: AlterUserScramCredentials
 * and DescribeUserScramCredentials on a plain listener, which Kafka serves without SASL) and through
 * Kafka's own {@code kafka-configs.sh} ({@code org.apache.kafka.tools.ConfigCommand} from the Kafka 4.4
 * jars of {@code kafka-peer}, in a child JVM). Each step writes down every user's result (the
 * exception class and message of a refusal), normalised: the users' random names become letters
 * and the bootstrap servers BOOTSTRAP. Every target's outcome must be Apache Kafka's.
 */
@OnSharedTargets
class ScramCredentialsIT {

    @Test
    void theAdminClientAltersAndDescribesCredentialsAsOnKafka() {
        Differential.assertSameOutcome(ScramCredentialsIT::adminScenario);
    }

    @Test
    void kafkaConfigsAddsAndDeletesACredentialAsOnKafka() {
        Differential.assertSameOutcome(ScramCredentialsIT::kafkaConfigsScenario);
    }

    /** The users of one run: random names, written down as their letters. */
    private record Users(Map<String, String> letters) {
        static Users fresh(String... letters) {
            String run = UUID.randomUUID().toString().substring(0, 8);
            Map<String, String> names = new TreeMap<>();
            for (String letter : letters) {
                names.put("scram-" + run + "-" + letter.toLowerCase(), letter);
            }
            return new Users(names);
        }

        String name(String letter) {
            return letters.entrySet().stream()
                    .filter(e -> e.getValue().equals(letter))
                    .findFirst()
                    .orElseThrow()
                    .getKey();
        }

        String normalise(String text) {
            String out = text;
            for (var e : letters.entrySet()) {
                out = out.replace(e.getKey(), e.getValue());
            }
            return out;
        }
    }

    private static void adminScenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        Users users = Users.fresh("A", "B", "C", "U");
        String a = users.name("A");
        String b = users.name("B");
        String c = users.name("C");
        String unknown = users.name("U");
        try (Admin admin = target.admin()) {
            alter(
                    admin,
                    users,
                    outcome,
                    "upsert A (SHA-256, 8192) and B (SHA-512, 4096)",
                    List.of(
                            new UserScramCredentialUpsertion(
                                    a, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "a-pw"),
                            new UserScramCredentialUpsertion(
                                    b, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "b-pw")));
            alter(
                    admin,
                    users,
                    outcome,
                    "upsert A (SHA-512, 4096) too",
                    List.of(new UserScramCredentialUpsertion(
                            a, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "a-pw")));
            outcome.add(
                    "describe all (the run's users)",
                    describeAll(
                            admin,
                            users,
                            Map.of("A", "[SCRAM_SHA_256/8192, SCRAM_SHA_512/4096]", "B", "[SCRAM_SHA_512/4096]")));
            outcome.add("describe A and B", describe(admin, users, List.of(a, b)));
            outcome.add("describe an unknown user", describe(admin, users, List.of(unknown)));
            outcome.add("describe A twice", describe(admin, users, List.of(a, a)));

            alter(
                    admin,
                    users,
                    outcome,
                    "too few iterations (1000) for C",
                    List.of(new UserScramCredentialUpsertion(
                            c, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), "c-pw")));
            alter(
                    admin,
                    users,
                    outcome,
                    "too many iterations (20000) for C",
                    List.of(new UserScramCredentialUpsertion(
                            c, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 20000), "c-pw")));
            alter(
                    admin,
                    users,
                    outcome,
                    "B twice in one request (two mechanisms), C once",
                    List.of(
                            new UserScramCredentialUpsertion(
                                    b, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "b-pw"),
                            new UserScramCredentialDeletion(b, ScramMechanism.SCRAM_SHA_512),
                            new UserScramCredentialUpsertion(
                                    c, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "c-pw")));
            outcome.add(
                    "describe all after",
                    describeAll(
                            admin,
                            users,
                            Map.of(
                                    "A",
                                    "[SCRAM_SHA_256/8192, SCRAM_SHA_512/4096]",
                                    "B",
                                    "[SCRAM_SHA_512/4096]",
                                    "C",
                                    "[SCRAM_SHA_256/4096]")));
            outcome.add("describe B and C", describe(admin, users, List.of(b, c)));

            alter(
                    admin,
                    users,
                    outcome,
                    "delete A's SHA-256",
                    List.of(new UserScramCredentialDeletion(a, ScramMechanism.SCRAM_SHA_256)));
            outcome.add(
                    "describe all after the deletion",
                    describeAll(
                            admin,
                            users,
                            Map.of(
                                    "A",
                                    "[SCRAM_SHA_512/4096]",
                                    "B",
                                    "[SCRAM_SHA_512/4096]",
                                    "C",
                                    "[SCRAM_SHA_256/4096]")));
            outcome.add("describe A", describe(admin, users, List.of(a)));
            alter(
                    admin,
                    users,
                    outcome,
                    "delete A's SHA-256 again, and the unknown user's",
                    List.of(
                            new UserScramCredentialDeletion(a, ScramMechanism.SCRAM_SHA_256),
                            new UserScramCredentialDeletion(unknown, ScramMechanism.SCRAM_SHA_512)));
            alter(
                    admin,
                    users,
                    outcome,
                    "delete the rest",
                    List.of(
                            new UserScramCredentialDeletion(a, ScramMechanism.SCRAM_SHA_512),
                            new UserScramCredentialDeletion(b, ScramMechanism.SCRAM_SHA_512),
                            new UserScramCredentialDeletion(c, ScramMechanism.SCRAM_SHA_256)));
            outcome.add("describe all (the run's users) at the end", describeAll(admin, users, Map.of()));
        }
    }

    private static void kafkaConfigsScenario(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        Users users = Users.fresh("D", "E");
        String d = users.name("D");
        String e = users.name("E");
        outcome.add(
                "kafka-configs --add-config SCRAM-SHA-512 with iterations",
                alterUser(target, users, d, "--add-config", "SCRAM-SHA-512=[iterations=8192,password=d-secret]"));
        outcome.add(
                "kafka-configs --add-config SCRAM-SHA-256",
                alterUser(target, users, d, "--add-config", "SCRAM-SHA-256=[password=d-secret]"));
        try (Admin admin = target.admin()) {
            outcome.add(
                    "describe all", describeAll(admin, users, Map.of("D", "[SCRAM_SHA_256/4096, SCRAM_SHA_512/8192]")));
            outcome.add("describe D", describe(admin, users, List.of(d)));
            outcome.add(
                    "kafka-configs --add-config both mechanisms at once",
                    alterUser(
                            target,
                            users,
                            e,
                            "--add-config",
                            "SCRAM-SHA-512=[password=e-secret],SCRAM-SHA-256=[password=e-secret]"));
            outcome.add(
                    "kafka-configs --delete-config SCRAM-SHA-512",
                    alterUser(target, users, d, "--delete-config", "SCRAM-SHA-512"));
            outcome.add("describe all after", describeAll(admin, users, Map.of("D", "[SCRAM_SHA_256/4096]")));
            outcome.add(
                    "kafka-configs --delete-config SCRAM-SHA-512 again",
                    alterUser(target, users, d, "--delete-config", "SCRAM-SHA-512"));
            alter(
                    admin,
                    users,
                    outcome,
                    "clean up",
                    List.of(new UserScramCredentialDeletion(d, ScramMechanism.SCRAM_SHA_256)));
        }
    }

    /** {@code kafka-configs --alter --entity-type users --entity-name <user> <args>}. */
    private static List<String> alterUser(KafkaTarget target, Users users, String user, String... args)
            throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--alter", "--entity-type", "users", "--entity-name", user));
        all.addAll(List.of(args));
        return configs(target, users, all.toArray(String[]::new));
    }

    /** Alters, writing down each user's result in user order. */
    private static void alter(
            Admin admin,
            Users users,
            Differential.Outcome outcome,
            String step,
            List<UserScramCredentialAlteration> alterations) {
        Map<String, KafkaFuture<Void>> results =
                admin.alterUserScramCredentials(alterations).values();
        Map<String, String> byUser = new TreeMap<>();
        results.forEach((user, future) -> byUser.put(users.normalise(user), result(future, users)));
        outcome.add(step, byUser);
    }

    /**
     * Describes the users, writing down each one's mechanisms and iterations or its refusal; waits
     * until the description is stable (a broker answers from its metadata, which follows a change a
     * moment after the alteration's answer on Kafka too).
     */
    private static String describe(Admin admin, Users users, List<String> names) {
        Map<String, String> byUser = new TreeMap<>();
        var result = admin.describeUserScramCredentials(names);
        for (String name : new java.util.LinkedHashSet<>(names)) {
            byUser.put(users.normalise(name), describeResult(result.description(name), users));
        }
        byUser.put("(all)", result(result.all(), users));
        return byUser.toString();
    }

    /**
     * Every described user of this run with its credentials, once they are {@code expected} (letter
     * to credentials): a broker answers from its metadata, which follows a change a moment after the
     * alteration's answer, on Kafka too.
     */
    private static String describeAll(Admin admin, Users users, Map<String, String> expected) {
        Map<String, String> seen = new TreeMap<>();
        Awaitility.await("described users " + expected)
                .atMost(Clients.PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    seen.clear();
                    Map<String, UserScramCredentialsDescription> all = admin.describeUserScramCredentials()
                            .all()
                            .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    all.forEach((user, description) -> {
                        if (users.letters().containsKey(user)) {
                            seen.put(users.normalise(user), infos(description));
                        }
                    });
                    return seen.equals(expected);
                });
        return seen.toString();
    }

    private static String describeResult(KafkaFuture<UserScramCredentialsDescription> future, Users users) {
        try {
            return infos(future.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            return refusal(e.getCause(), users);
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    private static String infos(UserScramCredentialsDescription description) {
        return description.credentialInfos().stream()
                .map(i -> i.mechanism() + "/" + i.iterations())
                .sorted()
                .toList()
                .toString();
    }

    private static String result(KafkaFuture<?> future, Users users) {
        try {
            future.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return "ok";
        } catch (ExecutionException e) {
            return refusal(e.getCause(), users);
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    private static String refusal(Throwable cause, Users users) {
        return cause.getClass().getSimpleName() + " (" + users.normalise(String.valueOf(cause.getMessage())) + ")";
    }

    /** Runs ConfigCommand against the target: its output lines, the users' names normalised, and its exit code. */
    private static List<String> configs(KafkaTarget target, Users users, String... args)
            throws IOException, InterruptedException {
        KafkaTool.Run run = KafkaTool.run("org.apache.kafka.tools.ConfigCommand", target, List.of(args));
        List<String> lines = new ArrayList<>();
        for (String line : run.withExit()) {
            if (!line.startsWith("\tat ")) {
                lines.add(users.normalise(line.trim().replace(target.bootstrapServers(), "BOOTSTRAP")));
            }
        }
        return lines;
    }
}
