package io.tributary.common.testing;

import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;

/** kafka-clients' own SCRAM client side, for raw SASL exchanges in tests. */
public final class ScramClients {

    static {
        ScramSaslClientProvider.initialize();
    }

    private ScramClients() {}

    /** A SCRAM client of {@code mechanism} ({@code SCRAM-SHA-256}...) for a user and password. */
    public static SaslClient client(String mechanism, String user, String password) throws SaslException {
        return Sasl.createSaslClient(
                new String[] {mechanism}, null, "kafka", "127.0.0.1", Map.of(), (Callback[] callbacks) -> {
                    for (Callback callback : callbacks) {
                        if (callback instanceof NameCallback name) {
                            name.setName(user);
                        } else if (callback instanceof PasswordCallback secret) {
                            secret.setPassword(password.toCharArray());
                        }
                    }
                });
    }
}
