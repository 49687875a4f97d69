package io.shardingjob.core.internal.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class NextAssignmentTest {

    private static final String JOB = "orderSync";

    private static final Function<String, ShardingStrategy> STRATEGIES = ShardingStrategies.builtIns()::get;

    /** For the cases the strategy must not be asked about. */
    private static final Function<String, ShardingStrategy> NO_STRATEGY = name -> {
        throw new AssertionError("no strategy should be asked, was asked for " + name);
    };

    @ParameterizedTest(name = "{0} instances, {1} configured items -> {2} items, one each")
    @CsvSource({"1, 5, 1", "3, 5, 3", "3, 3, 3", "7, 2, 7", "0, 4, 1"})
    void dynamicShardingMakesTheTotalTheClusterSize(int instanceCount, int configuredTotal, int expectedTotal) {
        List<String> instances = instances(instanceCount);

        Assignment next = NextAssignment.compute(
                JOB, config(configuredTotal, true, "average"), instances, Assignment.NONE, NO_STRATEGY);

        assertThat(next.shardingTotalCount()).isEqualTo(expectedTotal);
        assertThat(next.itemsByInstance().keySet()).containsExactlyInAnyOrderElementsOf(instances);
        assertThat(next.itemsByInstance().values())
                .allSatisfy(items -> assertThat(items).hasSize(1));
    }

    @Test
    void dynamicShardingLetsTheSurvivorsKeepTheirItems() {
        Assignment previous = new Assignment(4, 3, Map.of("A", List.of(0), "B", List.of(1), "C", List.of(2)));

        Assignment next =
                NextAssignment.compute(JOB, config(3, true, "average"), List.of("B", "C"), previous, NO_STRATEGY);

        assertThat(next.itemsByInstance()).isEqualTo(Map.of("B", List.of(1), "C", List.of(0)));
    }

    @ParameterizedTest(name = "{0} configured items, strategy {1}")
    @CsvSource({"1, average", "3, sticky", "10, odevity", "10000, rotate"})
    void noInstancesGiveAnEmptyAssignmentAtTheConfiguredTotal(int configuredTotal, String strategy) {
        Assignment previous = new Assignment(7, configuredTotal, Map.of("gone", List.of(0)));

        Assignment next =
                NextAssignment.compute(JOB, config(configuredTotal, false, strategy), List.of(), previous, NO_STRATEGY);

        assertThat(next).isEqualTo(new Assignment(8, configuredTotal, Map.of()));
    }

    @ParameterizedTest(name = "epoch {0}, dynamic sharding {1}, {2} instances -> epoch {0} + 1")
    @CsvSource({"0, false, 3", "0, true, 3", "1, false, 0", "1, true, 0", "41, false, 2", "41, true, 2"})
    void theEpochIsThePreviousPlusOne(long previousEpoch, boolean dynamicSharding, int instanceCount) {
        Assignment previous = new Assignment(previousEpoch, 3, Map.of());

        Assignment next = NextAssignment.compute(
                JOB, config(3, dynamicSharding, "average"), instances(instanceCount), previous, STRATEGIES);

        assertThat(next.epoch()).isEqualTo(previousEpoch + 1);
    }

    static Stream<Arguments> strategyTable() {
        return Stream.of(
                arguments("average", 8, List.of(List.of(0, 1, 6), List.of(2, 3, 7), List.of(4, 5))),
                arguments("average", 9, List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8))),
                arguments("average", 2, List.of(List.of(0), List.of(1), List.of())),
                arguments("sticky", 8, List.of(List.of(0, 1, 6), List.of(2, 3, 7), List.of(4, 5))));
    }

    /** The seed article's table: "3 servers, 8 items -> [0,1,6] [2,3,7] [4,5]". */
    @ParameterizedTest(name = "{0}: {1} items over three instances -> {2}")
    @MethodSource("strategyTable")
    void theJobsStrategyDividesTheConfiguredItems(String strategy, int total, List<List<Integer>> expected) {
        List<String> instances = instances(3);

        Assignment next =
                NextAssignment.compute(JOB, config(total, false, strategy), instances, Assignment.NONE, STRATEGIES);

        assertThat(next.shardingTotalCount()).isEqualTo(total);
        assertThat(instances.stream().map(next::itemsOf).toList()).isEqualTo(expected);
    }

    @Test
    void theStrategyIsAskedByNameWithTheJobTheCountTheInstancesAndThePreviousItems() {
        List<ShardingRequest> asked = new ArrayList<>();
        List<String> askedFor = new ArrayList<>();
        ShardingStrategy sticky = ShardingStrategies.builtIns().get("sticky");
        Function<String, ShardingStrategy> recording = name -> {
            askedFor.add(name);
            return new Delegating(sticky, asked);
        };
        Assignment previous = new Assignment(2, 4, Map.of("instance-0", List.of(0, 1), "gone", List.of(2, 3)));

        Assignment next = NextAssignment.compute(JOB, config(4, false, "sticky"), instances(2), previous, recording);

        assertThat(askedFor).containsExactly("sticky");
        assertThat(asked).containsExactly(new ShardingRequest(JOB, 4, instances(2), previous.itemsByInstance()));
        assertThat(next.itemsOf("instance-0")).containsExactly(0, 1);
        assertThat(next.itemsOf("instance-1")).containsExactly(2, 3);
    }

    static Stream<Arguments> faultyResults() {
        return Stream.of(
                arguments(
                        "an item twice",
                        Map.of("instance-0", List.of(0, 1), "instance-1", List.of(1, 2)),
                        "assigned item 1 twice"),
                arguments(
                        "an item missing",
                        Map.of("instance-0", List.of(0), "instance-1", List.of(1)),
                        "did not assign items [2]"),
                arguments(
                        "an item beyond the count",
                        Map.of("instance-0", List.of(0, 1), "instance-1", List.of(2, 3)),
                        "assigned item 3 outside 0..2 to 'instance-1'"),
                arguments(
                        "an unknown instance",
                        Map.of("instance-0", List.of(0, 1), "stranger", List.of(2)),
                        "assigned items to unknown instances [stranger]"));
    }

    @ParameterizedTest(name = "a strategy that assigns {0} is refused")
    @MethodSource("faultyResults")
    void aStrategysResultIsVerified(String fault, Map<String, List<Integer>> result, String problem) {
        ShardingStrategy faulty = new Fixed("faulty", result);

        assertThatIllegalStateException()
                .isThrownBy(() -> NextAssignment.compute(
                        JOB, config(3, false, "faulty"), instances(2), Assignment.NONE, name -> faulty))
                .withMessage("Sharding strategy 'faulty' for job '" + JOB + "' " + problem);
    }

    @Test
    void aStrategysResultIsGivenEveryInstanceInSortedOrder() {
        ShardingStrategy leavesOneOut = new Fixed("partial", Map.of("instance-0", List.of(2, 0, 1)));

        Assignment next = NextAssignment.compute(
                JOB, config(3, false, "partial"), instances(2), Assignment.NONE, name -> leavesOneOut);

        assertThat(next.itemsByInstance()).isEqualTo(Map.of("instance-0", List.of(0, 1, 2), "instance-1", List.of()));
    }

    private static JobConfiguration config(int total, boolean dynamicSharding, String strategy) {
        return JobConfiguration.builder(JOB)
                .shardingTotalCount(total)
                .dynamicSharding(dynamicSharding)
                .strategy(strategy)
                .build();
    }

    private static List<String> instances(int count) {
        return IntStream.range(0, count).mapToObj(i -> "instance-" + i).toList();
    }

    /** A strategy that answers the same whatever it is asked. */
    private record Fixed(String name, Map<String, List<Integer>> result) implements ShardingStrategy {

        @Override
        public Map<String, List<Integer>> shard(ShardingRequest request) {
            return result;
        }
    }

    /** A strategy that records what it is asked and lets another answer. */
    private record Delegating(ShardingStrategy strategy, List<ShardingRequest> asked) implements ShardingStrategy {

        @Override
        public String name() {
            return strategy.name();
        }

        @Override
        public Map<String, List<Integer>> shard(ShardingRequest request) {
            asked.add(request);
            return strategy.shard(request);
        }
    }
}
