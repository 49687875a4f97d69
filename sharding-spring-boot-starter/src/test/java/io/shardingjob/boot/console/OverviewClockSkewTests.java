package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.registry.ClockSkew;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The overview's live part warns of this instance's clock once it is beyond the bound from ZooKeeper's. */
class OverviewClockSkewTests {

    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");

    private final ShardingOperations operations = mock(ShardingOperations.class);

    private final PageContext context =
            new PageContext("/sharding-console", false, null, null, Duration.ofSeconds(1), "w1", true, NOW);

    OverviewClockSkewTests() {
        given(operations.jobs()).willReturn(List.of());
    }

    @Test
    void warnsOfAClockBeyondTheBound() {
        given(operations.clockSkew()).willReturn(Optional.of(skew(-20_003)));

        String fragment = new OverviewPage(operations).fragment(context);

        assertThat(fragment)
                .contains("<p id=\"clock-skew\" class=\"warning\" data-skew-millis=\"-20003\">")
                .contains("This instance&#39;s clock is 20003 ms behind ZooKeeper&#39;s (± 2 ms), more than"
                        + " sharding.zookeeper.max-clock-skew (5000 ms): its fires start late");
    }

    @Test
    void saysNothingOfAClockWithinTheBoundOrNotMeasuredYet() {
        given(operations.clockSkew()).willReturn(Optional.of(skew(1_200)));
        assertThat(new OverviewPage(operations).fragment(context)).doesNotContain("clock-skew");

        given(operations.clockSkew()).willReturn(Optional.empty());
        assertThat(new OverviewPage(operations).fragment(context)).doesNotContain("clock-skew");
    }

    private static ClockSkew skew(long millis) {
        return new ClockSkew(Duration.ofMillis(millis), Duration.ofMillis(2), NOW, Duration.ofSeconds(5));
    }
}
