package io.shardingjob.sample.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.sample.e2e.ShardingJson.Execution;
import io.shardingjob.sample.e2e.ShardingJson.Item;
import io.shardingjob.sample.e2e.ShardingJson.Job;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Checks shared by the drills; each reads only {@code /actuator/sharding} of the given copies. */
final class Drills {

    static final String SETTLEMENT = "orderSettlement";

    static final String STOCK = "warehouseStock";

    /** Test-friendly settings: a fire every 3 s whose regions take 2 s each; the stock job never fires. */
    static final List<String> FAST_JOBS = List.of(
            "sharding.zookeeper.session-timeout=4s",
            "sharding.jobs.orderSettlement.cron=*/3 * * * * *",
            "sharding.jobs.warehouseStock.cron=0 0 0 1 1 *",
            "sample.report-export.enabled=false",
            "sample.settlement-export.enabled=false",
            "sample.settlement-duration=2s");

    private Drills() {}

    /**
     * Asserts that every copy sees the same complete assignment of {@code job}: every item owned by exactly one of
     * {@code apps}, each of which owns at least one item and reports exactly those as its local items.
     *
     * @return the owner of each item
     */
    static Map<Integer, String> assertCompleteAssignment(Collection<SampleApp> apps, String job, int items) {
        Set<String> ids = apps.stream().map(SampleApp::instanceId).collect(Collectors.toSet());
        Map<Integer, String> owners = null;
        Long epoch = null;
        for (SampleApp app : apps) {
            Job view = app.job(job);
            assertThat(view.reshardPending()).as("reshard pending on %s", app).isFalse();
            assertThat(view.items()).extracting(Item::item).containsExactlyElementsOf(range(items));
            assertThat(view.items()).extracting(Item::instance).allMatch(ids::contains, "owned by one of " + ids);
            Map<Integer, String> seen = view.items().stream()
                    .collect(Collectors.toMap(Item::item, Item::instance, (a, b) -> a, TreeMap::new));
            if (owners == null) {
                owners = seen;
                epoch = view.epoch();
            } else {
                assertThat(seen).as("owners seen by %s", app).isEqualTo(owners);
                assertThat(view.epoch()).as("epoch seen by %s", app).isEqualTo(epoch);
            }
            assertThat(app.summary().job(job).localItems())
                    .as("local items of %s", app)
                    .containsExactlyInAnyOrderElementsOf(itemsOf(seen, app.instanceId()));
        }
        assertThat(new TreeSet<>(owners.values())).as("instances owning items").isEqualTo(new TreeSet<>(ids));
        return owners;
    }

    static List<Integer> itemsOf(Map<Integer, String> owners, String instanceId) {
        return owners.entrySet().stream()
                .filter(entry -> entry.getValue().equals(instanceId))
                .map(Map.Entry::getKey)
                .toList();
    }

    static List<Integer> range(int items) {
        return IntStream.range(0, items).boxed().toList();
    }

    /** The recent executions of {@code job} on every copy, oldest first. */
    static List<Execution> executions(Collection<SampleApp> apps, String job) {
        List<Execution> all = new ArrayList<>();
        apps.forEach(app -> all.addAll(app.job(job).recentExecutions()));
        all.sort(Comparator.comparing(Execution::start));
        return all;
    }

    /** The executions of each fire whose fire time is after {@code after}, by fire time. */
    static TreeMap<Instant, List<Execution>> byFire(List<Execution> executions, Instant after) {
        return executions.stream()
                .filter(execution -> execution.fireTime().isAfter(after))
                .collect(Collectors.groupingBy(Execution::fireTime, TreeMap::new, Collectors.toList()));
    }

    /** Fires after {@code after} in which every item ran and ended. */
    /**
     * The later of {@code since} and the end of every make-up run: the copies make up the fires they missed while they
     * started, and a make-up that runs into a later fire finds that fire's item busy, which is made up in turn, until
     * one ends before the next fire. The fires after it are the steady state.
     */
    static Instant afterMakeUps(List<Execution> executions, Instant since) {
        return executions.stream()
                .filter(run -> run.source().equals("MISFIRE"))
                .map(Execution::end)
                .filter(since::isBefore)
                .max(Instant::compareTo)
                .orElse(since);
    }

    static List<Instant> completeFires(List<Execution> executions, Instant after, int items) {
        return byFire(executions, after).entrySet().stream()
                .filter(fire -> fire.getValue().stream()
                        .map(Execution::item)
                        .collect(Collectors.toSet())
                        .containsAll(range(items)))
                .map(Map.Entry::getKey)
                .toList();
    }

    /** Pairs of runs of one item that overlapped in time, on any copies. */
    static List<String> overlappingRuns(List<Execution> executions) {
        List<String> overlaps = new ArrayList<>();
        Map<Integer, List<Execution>> byItem =
                executions.stream().collect(Collectors.groupingBy(Execution::item, TreeMap::new, Collectors.toList()));
        byItem.forEach((item, runs) -> {
            for (int i = 0; i < runs.size(); i++) {
                for (int j = i + 1; j < runs.size(); j++) {
                    if (runs.get(i).overlaps(runs.get(j))) {
                        overlaps.add(runs.get(i) + " overlaps " + runs.get(j));
                    }
                }
            }
        });
        return overlaps;
    }

    static String describe(Execution execution) {
        return "item " + execution.item() + " on " + execution.instance() + " (" + execution.source() + ", fire "
                + execution.fireTime() + ")";
    }
}
