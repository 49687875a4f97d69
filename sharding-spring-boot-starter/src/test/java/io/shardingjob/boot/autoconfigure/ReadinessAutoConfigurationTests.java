package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.actuate.ShardingHealthIndicator;
import io.shardingjob.boot.jobs.ReadinessHandOff;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The jobs follow the readiness when Boot keeps its availability states, and only then. */
class ReadinessAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(Jobs.class)
            .withPropertyValues(TestZooKeeper.properties("readiness-config-test"));

    @Test
    void standsTheJobsByUntilTheApplicationIsReadyWhenBootKeepsItsAvailability() {
        runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(ReadinessHandOff.class);
                    // A context runner publishes no readiness: the application never became ready.
                    assertThat(job(context.getBean(ShardingOperations.class)).isStandingBy())
                            .isTrue();
                    assertThat(context.getBean(ShardingHealthIndicator.class)
                                    .health()
                                    .getDetails()
                                    .get("jobs")
                                    .toString())
                            .contains("standingBy=true");
                });
    }

    @Test
    void letsTheJobsTakeItemsWhateverTheReadinessWhenTurnedOff() {
        runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
                .withPropertyValues("sharding.availability.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ReadinessHandOff.class);
                    assertThat(job(context.getBean(ShardingOperations.class)).isStandingBy())
                            .isFalse();
                });
    }

    @Test
    void letsTheJobsTakeItemsWithoutBootsAvailabilityStates() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(ReadinessHandOff.class);
            assertThat(job(context.getBean(ShardingOperations.class)).isStandingBy())
                    .isFalse();
        });
    }

    private static io.shardingjob.core.JobCoordinator job(ShardingOperations operations) {
        return operations.job(RecordingJob.NAME).orElseThrow();
    }

    @Configuration(proxyBeanMethods = false)
    static class Jobs {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }
}
