package io.tributary.common.testing;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** Starts a service's application context without a web server, for tests of its configuration. */
public final class ServiceStartup {

    private ServiceStartup() {}

    /** Starts {@code application} with command-line {@code args}, then closes it; throws what startup throws. */
    public static void startAndClose(Class<?> application, String... args) {
        new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .run(args)
                .close();
    }
}
