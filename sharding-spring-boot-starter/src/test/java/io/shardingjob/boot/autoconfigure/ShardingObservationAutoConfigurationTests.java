package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.observation.ShardingFireObservationContext;
import io.shardingjob.boot.observation.ShardingItemObservationContext;
import io.shardingjob.boot.observation.ShardingItemObservationConvention;
import io.shardingjob.boot.observation.ShardingObservations;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class ShardingObservationAutoConfigurationTests {

    private final ApplicationContextRunner withoutJobs = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("observed-instance"));

    private final ApplicationContextRunner runner = withoutJobs.withUserConfiguration(ObservedJobConfiguration.class);

    @Test
    void aFireRecordsAFireObservationAndAnItemObservationPerItemWithTheirKeyValues() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            await().atMost(Duration.ofSeconds(15))
                    .untilAsserted(() -> assertThat(stoppedFires(registry)).isNotEmpty());
            ShardingFireObservationContext fire = stoppedFires(registry).get(0);
            assertThat(fire.getLowCardinalityKeyValues())
                    .isEqualTo(KeyValues.of(
                            "chain", "observed", "job", "observed", "outcome", "FAILED", "source", "NORMAL"));
            assertThat(fire.getHighCardinalityKeyValues())
                    .isEqualTo(KeyValues.of(
                            "fire.time", fire.getFireTime().toString(),
                            "instance", "observed-instance",
                            "items", "[0, 1]"));

            List<ShardingItemObservationContext> items = contexts(registry).stream()
                    .filter(ShardingItemObservationContext.class::isInstance)
                    .map(ShardingItemObservationContext.class::cast)
                    .filter(item -> item.getItem().fireTime().equals(fire.getFireTime()))
                    .toList();
            assertThat(items)
                    .extracting(item -> item.getLowCardinalityKeyValues(), item -> item.getHighCardinalityKeyValues())
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(
                                    KeyValues.of("job", "observed", "outcome", "SUCCESS", "source", "NORMAL"),
                                    KeyValues.of(
                                            "fire.time", fire.getFireTime().toString(),
                                            "instance", "observed-instance",
                                            "item", "0")),
                            org.assertj.core.groups.Tuple.tuple(
                                    KeyValues.of("job", "observed", "outcome", "FAILED", "source", "NORMAL"),
                                    KeyValues.of(
                                            "fire.time", fire.getFireTime().toString(),
                                            "instance", "observed-instance",
                                            "item", "1")));
            assertThat(items)
                    .allSatisfy(item -> assertThat(item.getParentObservation().getContextView())
                            .as("an item run in a fire is a child of the fire's observation")
                            .isSameAs(fire));
            assertThat(items)
                    .filteredOn(item -> item.getItem().item() == 1)
                    .singleElement()
                    .satisfies(failed -> assertThat(failed.getError()).hasMessage("item 1 fails"));
            // Inside the job's method the item's observation is the current one.
            ObservedJob job = context.getBean(ObservedJob.class);
            assertThat(job.currentNames.get(0)).isEqualTo("sharding.item");
        });
    }

    @Test
    void aConventionBeanRenamesTheItemObservation() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry)
                .withBean(ShardingItemObservationConvention.class, () -> new ShardingItemObservationConvention() {
                    @Override
                    public String getName() {
                        return "billing.shard";
                    }
                })
                .run(context -> await().atMost(Duration.ofSeconds(15))
                        .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                                .hasObservationWithNameEqualTo("billing.shard")
                                .that()
                                .hasLowCardinalityKeyValue("job", "observed")));
    }

    @Test
    void observesNothingWithoutAnObservationRegistry() {
        withoutJobs.run(context -> assertThat(context).doesNotHaveBean(ShardingObservations.class));
    }

    @Test
    void observesNothingWithoutMicrometersObservationApi() {
        withoutJobs
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
                .run(context -> assertThat(context).doesNotHaveBean(ShardingObservations.class));
    }

    private static List<ShardingFireObservationContext> stoppedFires(TestObservationRegistry registry) {
        return contexts(registry).stream()
                .filter(context -> context instanceof ShardingFireObservationContext fire && fire.getReport() != null)
                .map(ShardingFireObservationContext.class::cast)
                .toList();
    }

    /** Every context the registry has handled so far. */
    private static List<Observation.Context> contexts(TestObservationRegistry registry) {
        List<Observation.Context> handled = new ArrayList<>();
        TestObservationRegistryAssert.assertThat(registry).hasHandledContextsThatSatisfy(handled::addAll);
        return handled;
    }

    @Configuration(proxyBeanMethods = false)
    static class ObservedJobConfiguration {

        @Bean
        ObservedJob observedJob(ObservationRegistry registry) {
            return new ObservedJob(registry);
        }
    }

    static class ObservedJob {

        private final ObservationRegistry registry;

        final List<String> currentNames = new java.util.concurrent.CopyOnWriteArrayList<>();

        ObservedJob(ObservationRegistry registry) {
            this.registry = registry;
        }

        @ShardedJob(name = "observed", cron = "* * * * * *", shardingTotalCount = 2)
        void run(ShardingContext context) {
            Observation current = registry.getCurrentObservation();
            currentNames.add(current == null ? "none" : current.getContextView().getName());
            if (context.item() == 1) {
                throw new IllegalStateException("item 1 fails");
            }
        }
    }
}
