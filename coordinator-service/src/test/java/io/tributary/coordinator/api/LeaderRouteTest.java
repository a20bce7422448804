package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LeaderRouteTest {

    private final LeaderRoute route = new LeaderRoute(1, List.of("h0:8091", "h1:8092", "h2:8093"));

    @Test
    void theReadyLeaderServesTheWriteItself() {
        assertThat(route.decide(true, Optional.of("c1"), "http")).isInstanceOf(LeaderRoute.Here.class);
    }

    @Test
    void aFollowerRedirectsToTheLeadersHttpAddressInIdOrder() {
        assertThat(route.decide(false, Optional.of("c2"), "http"))
                .isEqualTo(new LeaderRoute.Redirect(URI.create("http://h2:8093")));
        assertThat(route.decide(false, Optional.of("c0"), "http"))
                .isEqualTo(new LeaderRoute.Redirect(URI.create("http://h0:8091")));
    }

    @Test
    void aRequestOverHttpsIsRedirectedOverHttps() {
        assertThat(route.decide(false, Optional.of("c2"), "https"))
                .isEqualTo(new LeaderRoute.Redirect(URI.create("https://h2:8093")));
    }

    @Test
    void noKnownLeaderIsUnavailable() {
        assertThat(route.decide(false, Optional.empty(), "http")).isInstanceOf(LeaderRoute.Unavailable.class);
    }

    @Test
    void anElectedLeaderNotYetReadyIsUnavailableRatherThanARedirectToItself() {
        assertThat(route.decide(false, Optional.of("c1"), "http")).isInstanceOf(LeaderRoute.Unavailable.class);
    }

    @Test
    void aLeaderIdOutsideThePeersIsUnavailable() {
        assertThat(route.decide(false, Optional.of("c7"), "http")).isInstanceOf(LeaderRoute.Unavailable.class);
        assertThat(route.decide(false, Optional.of("zz"), "http")).isInstanceOf(LeaderRoute.Unavailable.class);
    }

    @Test
    void selfMustBeAnIndexIntoThePeers() {
        assertThatThrownBy(() -> new LeaderRoute(3, List.of("a:1", "b:2", "c:3")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
