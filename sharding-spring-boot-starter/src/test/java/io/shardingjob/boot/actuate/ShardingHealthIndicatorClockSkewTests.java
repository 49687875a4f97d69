package io.shardingjob.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.registry.ClockSkew;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** A skewed clock is told in the health's details, with a warning beyond the bound, and leaves the status alone. */
class ShardingHealthIndicatorClockSkewTests {

    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");

    private final ShardingOperations operations = mock(ShardingOperations.class);

    ShardingHealthIndicatorClockSkewTests() {
        given(operations.instanceId()).willReturn("w1");
        given(operations.isConnected()).willReturn(true);
        given(operations.jobs()).willReturn(List.of());
    }

    @Test
    void staysUpWithTheSkewAndAWarningWhenTheClockIsBeyondTheBound() {
        given(operations.clockSkew()).willReturn(Optional.of(skew(20_003, 2)));

        Health health = new ShardingHealthIndicator(operations).health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails().get("clockSkew"))
                .isEqualTo(Map.of(
                        "skewMillis", 20_003L,
                        "uncertaintyMillis", 2L,
                        "maxClockSkewMillis", 5_000L,
                        "exceeded", true,
                        "measuredAt", NOW.toString()));
        assertThat(health.getDetails().get("warnings"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .singleElement()
                .asString()
                .startsWith("this instance's clock is 20003 ms ahead of ZooKeeper's (± 2 ms), more than"
                        + " sharding.zookeeper.max-clock-skew (5000 ms): its fires start early");
    }

    @Test
    void hasTheSkewButNoWarningWithinTheBound() {
        given(operations.clockSkew()).willReturn(Optional.of(skew(-40, 3)));

        Health health = new ShardingHealthIndicator(operations).health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails().get("clockSkew").toString()).contains("skewMillis=-40", "exceeded=false");
        assertThat(health.getDetails()).doesNotContainKey("warnings");
    }

    @Test
    void saysNothingOfTheClockBeforeItWasMeasured() {
        given(operations.clockSkew()).willReturn(Optional.empty());

        Health health = new ShardingHealthIndicator(operations).health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).doesNotContainKeys("clockSkew", "warnings");
    }

    static ClockSkew skew(long millis, long uncertainty) {
        return new ClockSkew(Duration.ofMillis(millis), Duration.ofMillis(uncertainty), NOW, Duration.ofSeconds(5));
    }
}
