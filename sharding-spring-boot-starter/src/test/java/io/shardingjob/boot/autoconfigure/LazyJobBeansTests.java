package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.boot.jobs.ScheduledShardedJob;
import io.shardingjob.boot.jobs.ShardedJobConfigurationException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/**
 * The jobs of a bean created after start-up (a lazy one), on a real ZooKeeper: they are checked against the namespace's
 * graph of jobs together and started together, or none of them starts.
 */
class LazyJobBeansTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(LazyConfiguration.class)
            .withPropertyValues(TestZooKeeper.properties("lazy-test"));

    @Test
    void theJobsOfALazyBeanStartTogetherWhenTheBeanIsCreated() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            RunningJobs jobs = context.getBean(RunningJobs.class);
            assertThat(jobs.find("eager")).isPresent();
            assertThat(jobs.find("lazy-extract")).isEmpty();

            context.getBean(LazyPair.class);

            assertThat(jobs.all())
                    .extracting(job -> job.coordinator().jobName())
                    .containsExactlyInAnyOrder("eager", "lazy-extract", "lazy-load");
            assertThat(jobs.find("lazy-load")
                            .orElseThrow()
                            .coordinator()
                            .configuration()
                            .after())
                    .containsExactly("lazy-extract");
        });
    }

    @Test
    void aLazyBeanWithAJobFollowingNoKnownJobStartsNoneOfItsJobs() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(LazyOrphan.class))
                    .isInstanceOf(BeanCreationException.class)
                    .rootCause()
                    .isInstanceOf(ShardedJobConfigurationException.class)
                    .hasMessageContaining("Sharded job 'orphan'")
                    .hasMessageContaining("follows 'nowhere'");

            assertThat(context.getBean(RunningJobs.class).all())
                    .extracting(ScheduledShardedJob::describe)
                    .noneMatch(declarer -> declarer.contains("LazyOrphan"));
        });
    }

    @Test
    void aLazyBeanDeclaringTheNameOfARunningJobIsRefusedNamingBothDeclarers() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(LazyTwin.class))
                .rootCause()
                .isInstanceOf(ShardedJobConfigurationException.class)
                .hasMessageContaining("the name is declared twice")
                .hasMessageContaining("Eager")
                .hasMessageContaining("LazyTwin"));
    }

    static class Eager {

        @ShardedJob(name = "eager")
        void run() {}
    }

    /** Two jobs of one bean, one following the other: the follower's upstream starts in the same batch. */
    static class LazyPair {

        @ShardedJob(name = "lazy-extract", shardingTotalCount = 2)
        void extract() {}

        @ShardedJob(name = "lazy-load", shardingTotalCount = 2, after = "lazy-extract", itemWise = true)
        void load() {}
    }

    static class LazyOrphan {

        @ShardedJob(name = "fine")
        void fine() {}

        @ShardedJob(name = "orphan", after = "nowhere")
        void orphan() {}
    }

    static class LazyTwin {

        @ShardedJob(name = "eager")
        void again() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyConfiguration {

        @Bean
        Eager eager() {
            return new Eager();
        }

        @Bean
        @Lazy
        LazyPair lazyPair() {
            return new LazyPair();
        }

        @Bean
        @Lazy
        LazyOrphan lazyOrphan() {
            return new LazyOrphan();
        }

        @Bean
        @Lazy
        LazyTwin lazyTwin() {
            return new LazyTwin();
        }
    }
}
