package io.tributary.common.protocol;

import java.util.List;

/**
 * Puts a service's request handlers behind something that every request passes through, outside
 * the {@link RequestAuthorizer} (a broker's {@code request_percentage} quota measures the whole
 * request, its authorization included). Each of the service's Kafka listeners applies it, when the
 * service has one, to the handlers it serves.
 */
@FunctionalInterface
public interface RequestWrapper {

    /** The handlers to serve in place of {@code handlers}: one for each, the same APIs and versions. */
    List<RequestHandler> wrap(List<RequestHandler> handlers);
}
