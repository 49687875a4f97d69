package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Jobs defined, changed and removed while two copies of a service run on one ZooKeeper: what one instance does, both
 * apply, and a third that starts later finds; across every change, each item of each fire runs once.
 */
class JobsDefinedAtRunTimeTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final String namespace = TestZooKeeper.newNamespace();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    /** Every run of the job on any instance: instance, item, fire time, item count. */
    private final Queue<Run> runs = new ConcurrentLinkedQueue<>();

    private record Run(String instance, int item, Instant fireTime, int total) {}

    /** When each step of a test was taken, for the messages of its assertions. */
    private final Map<String, Instant> steps = new java.util.concurrent.ConcurrentSkipListMap<>();

    private void step(String name) {
        steps.put(steps.size() + " " + name, Instant.now());
    }

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void aJobDefinedChangedAndRemovedOnOneInstanceRunsChangesAndStopsOnAllWithNoFireLostOrDoubled() throws Exception {
        ShardedJobRegistry alpha = start("alpha");
        ShardedJobRegistry beta = start("beta");

        alpha.define(
                JobConfiguration.builder("export")
                        .cron("* * * * * *")
                        .shardingTotalCount(2)
                        .shardingItemParameters("0=eu,1=us")
                        .build(),
                "exporter");

        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(beta.definedJobs()).containsExactly("export");
            assertThat(instancesThatRan(2)).containsExactlyInAnyOrder("alpha", "beta");
        });

        step("4 items");
        beta.updateItems("export", 4, "0=eu,1=us,2=apac,3=latam");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(instancesThatRan(4)).containsExactlyInAnyOrder("alpha", "beta"));

        step("cron");
        alpha.updateCron("export", "0/2 * * * * *");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(firesAfterLastOddOne())
                        .as("fires on even seconds only, once the new cron is in force")
                        .hasSizeGreaterThanOrEqualTo(2));

        step("gamma");
        ShardedJobRegistry gamma = start("gamma");
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(gamma.definedJobs()).containsExactly("export");
            assertThat(instancesThatRan(4)).contains("gamma");
        });

        step("remove");
        alpha.remove("export").get(30, TimeUnit.SECONDS);
        int runsAtRemoval = runs.size();
        assertThat(alpha.definedJobs()).isEmpty();
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(beta.definedJobs()).isEmpty();
            assertThat(gamma.definedJobs()).isEmpty();
        });
        CuratorFramework client = contexts.get(0).getBean(RegistryCenter.class).client();
        assertThat(client.checkExists().forPath("/export"))
                .as("the job's state and ledger are gone; left: %s", tree(client, "/export"))
                .isNull();
        Thread.sleep(2_500); // Two fire periods of the last cron: a fire now would be a job still running somewhere.
        assertThat(runs.size()).isEqualTo(runsAtRemoval);

        assertEveryItemOfEveryWholeFireRanOnce();
    }

    @Test
    void aNameTakenByAJobDeclaredInCodeOrDefinedAlreadyIsRefused() {
        ShardedJobRegistry alpha = start("alpha");
        JobConfiguration export =
                JobConfiguration.builder("export").cron("0 0 * * * *").build();
        alpha.define(export, "exporter");

        assertThatThrownBy(() -> alpha.define(export, "exporter"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("'export'");
        assertThatThrownBy(() -> alpha.updateCron("nothing", "0 0 * * * *")).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(() -> alpha.updateCron("export", "not a cron"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("cron");
        assertThatThrownBy(() -> alpha.registerHandler("exporter", context -> {}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> tree(CuratorFramework client, String path) {
        List<String> paths = new ArrayList<>();
        try {
            for (String child : client.getChildren().forPath(path)) {
                paths.add(path + "/" + child);
                paths.addAll(tree(client, path + "/" + child));
            }
        } catch (Exception gone) {
            // Deleted meanwhile.
        }
        return paths;
    }

    /** The instances that ran an item of a fire of {@code total} items. */
    private Set<String> instancesThatRan(int total) {
        return runs.stream()
                .filter(run -> run.total() == total)
                .map(Run::instance)
                .collect(Collectors.toSet());
    }

    /** The fires after the last one on an odd second. */
    private List<Instant> firesAfterLastOddOne() {
        List<Instant> fires =
                runs.stream().map(Run::fireTime).distinct().sorted().toList();
        int lastOdd = -1;
        for (int i = 0; i < fires.size(); i++) {
            if (fires.get(i).getEpochSecond() % 2 != 0) {
                lastOdd = i;
            }
        }
        return fires.subList(lastOdd + 1, fires.size());
    }

    /**
     * No (item, fire) ran twice, and every fire between the first and the last ran all its items: a count change or a
     * cron change lost none and doubled none.
     */
    private void assertEveryItemOfEveryWholeFireRanOnce() {
        Map<Instant, List<Run>> byFire =
                runs.stream().collect(Collectors.groupingBy(Run::fireTime, TreeMap::new, Collectors.toList()));
        assertThat(byFire).hasSizeGreaterThan(4);
        List<Instant> fires = new ArrayList<>(byFire.keySet());
        for (Instant fire : fires) {
            List<Run> ofFire = byFire.get(fire);
            assertThat(ofFire.stream().map(Run::item).toList())
                    .as("items of the fire at %s, none twice", fire)
                    .doesNotHaveDuplicates();
        }
        // The first fire may have found only one instance running the job, the last may have been cut by the removal.
        for (Instant fire : fires.subList(1, fires.size() - 1)) {
            List<Run> ofFire = byFire.get(fire);
            int total = ofFire.stream().mapToInt(Run::total).max().orElseThrow();
            assertThat(new TreeSet<>(ofFire.stream().map(Run::item).toList()))
                    .as("every item of the fire at %s; its runs %s; steps %s", fire, ofFire, steps)
                    .containsExactlyElementsOf(IntStream.range(0, total).boxed().toList());
        }
    }

    private ShardedJobRegistry start(String instanceId) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Service.class)
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(namespace, instanceId))
                .run();
        contexts.add(context);
        ShardedJobRegistry registry = context.getBean(ShardedJobRegistry.class);
        // The code of the job, on every instance, as a service registers it at start-up.
        registry.registerHandler("exporter", context1 -> record(instanceId, context1));
        return registry;
    }

    private void record(String instanceId, ShardingContext context) {
        runs.add(new Run(instanceId, context.item(), context.fireTime(), context.shardingTotalCount()));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {}
}
