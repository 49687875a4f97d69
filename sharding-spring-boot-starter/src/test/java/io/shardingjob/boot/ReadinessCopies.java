package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Copies of one application on one ZooKeeper namespace, for the tests of the readiness hand-off: every copy records
 * every run it makes in {@link #RUNS}, and the runs are judged by the promise, every item of a fire once, never one
 * item twice at once.
 */
abstract class ReadinessCopies {

    /** Every run of every copy, as each copy's listener reports it. */
    static final Queue<ExecutionRecord> RUNS = new ConcurrentLinkedQueue<>();

    private final String namespace = TestZooKeeper.newNamespace();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeCopies() {
        contexts.forEach(ConfigurableApplicationContext::close);
        RUNS.clear();
    }

    /**
     * Starts a copy of {@code service}, whose runs are recorded.
     *
     * @param more further sources (classes) and properties ({@code name=value})
     */
    ConfigurableApplicationContext start(String instanceId, Class<?> service, Object... more) {
        List<Class<?>> sources = new ArrayList<>(List.of(service, RecordedRuns.class));
        List<String> properties = new ArrayList<>();
        for (Object added : more) {
            if (added instanceof Class<?> source) {
                sources.add(source);
            } else {
                properties.add((String) added);
            }
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(namespace, instanceId))
                .properties(properties.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }

    static List<ExecutionRecord> runsOf(String instance) {
        return RUNS.stream().filter(run -> run.instance().equals(instance)).toList();
    }

    /** How many fires after {@code from} the instance ran an item of. */
    static long firesRunBy(String instance, Instant from) {
        return runsOf(instance).stream()
                .filter(run -> run.fireTime().isAfter(from))
                .map(ExecutionRecord::fireTime)
                .distinct()
                .count();
    }

    /**
     * Each fire from {@code from} to {@code to} ran each of its {@code items} exactly once, wherever, and there were
     * at least {@code fires} of them; no item ever ran twice at overlapping times, on one instance or two.
     */
    static void assertEveryItemRanOnceAndNeverTwiceAtOnce(Instant from, Instant to, int items, int fires) {
        List<ExecutionRecord> runs = List.copyOf(RUNS);
        Map<Instant, List<ExecutionRecord>> byFire = runs.stream()
                .filter(run -> !run.fireTime().isBefore(from) && !run.fireTime().isAfter(to))
                .collect(Collectors.groupingBy(ExecutionRecord::fireTime));
        assertThat(byFire.keySet())
                .as("fires judged from %s to %s, of the runs %s", from, to, runs)
                .hasSizeGreaterThanOrEqualTo(fires);
        Integer[] everyItem = IntStream.range(0, items).boxed().toArray(Integer[]::new);
        byFire.forEach((fire, ofFire) -> assertThat(ofFire.stream().map(ExecutionRecord::item))
                .as("the items run of the fire at %s: %s", fire, ofFire)
                .containsExactlyInAnyOrder(everyItem));
        for (ExecutionRecord run : runs) {
            for (ExecutionRecord other : runs) {
                if (run != other && run.item() == other.item()) {
                    assertThat(run.start().isBefore(other.end())
                                    && other.start().isBefore(run.end()))
                            .as("item %d twice at once: %s and %s", run.item(), run, other)
                            .isFalse();
                }
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RecordedRuns {

        @Bean
        ShardedJobListener everyRun() {
            return new ShardedJobListener() {
                @Override
                public void executed(ExecutionRecord execution) {
                    RUNS.add(execution);
                }
            };
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PacedService {

        @Bean
        PacedJob pacedJob() {
            return new PacedJob();
        }
    }

    /** A job whose items take a while, so that two runs of one item at once would overlap. */
    static class PacedJob {

        static final String NAME = "paced";

        @ShardedJob(name = NAME, cron = "* * * * * *", shardingTotalCount = 4, failover = true)
        void run(ShardingContext context) throws InterruptedException {
            // Stands for work; the tests wait with Awaitility.
            TimeUnit.MILLISECONDS.sleep(300);
        }
    }
}
