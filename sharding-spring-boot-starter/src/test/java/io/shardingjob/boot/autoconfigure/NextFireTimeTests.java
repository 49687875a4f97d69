package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import java.time.Duration;
import java.time.Instant;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link ShardingOperations#nextFireTime} is the time the job's own schedule waits for, not a second computation. */
class NextFireTimeTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withBean(RecordingJob.class)
            .withPropertyValues(TestZooKeeper.properties("next-fire-test"));

    @Test
    void isTheNextTimeTheJobsCronGivesAndMovesOnAsTheJobFires() {
        runner.run(context -> {
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            Instant next = operations.nextFireTime(RecordingJob.NAME).orElseThrow();
            // The job fires every second: its next time is a whole second, at most a second away.
            assertThat(next.getNano()).isZero();
            assertThat(next)
                    .isBetween(Instant.now().minusMillis(100), Instant.now().plusSeconds(1));
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(operations.nextFireTime(RecordingJob.NAME))
                            .hasValueSatisfying(later -> assertThat(later).isAfter(next)));
        });
    }

    @Test
    void isUnknownForAJobThatDoesNotRunHere() {
        runner.run(context -> assertThatThrownBy(
                        () -> context.getBean(ShardingOperations.class).nextFireTime("noSuchJob"))
                .isInstanceOf(NoSuchElementException.class));
    }
}
