package io.shardingjob.core.sharding.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AverageAllocationStrategyTest {

    private static final List<String> THREE = List.of("instance-a", "instance-b", "instance-c");

    private final ShardingStrategy strategy = new AverageAllocationStrategy();

    static Stream<Arguments> seedTable() {
        return Stream.of(
                arguments(9, List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7, 8))),
                arguments(8, List.of(List.of(0, 1, 6), List.of(2, 3, 7), List.of(4, 5))),
                arguments(10, List.of(List.of(0, 1, 2, 9), List.of(3, 4, 5), List.of(6, 7, 8))));
    }

    @ParameterizedTest(name = "{0} items over three instances -> {1}")
    @MethodSource("seedTable")
    void reproducesTheSeedTableForThreeInstances(int total, List<List<Integer>> expected) {
        Map<String, List<Integer>> result = strategy.shard(new ShardingRequest("job", total, THREE));

        assertThat(result.keySet()).containsExactlyElementsOf(THREE);
        assertThat(List.copyOf(result.values())).isEqualTo(expected);
    }

    static Stream<Arguments> edgeCases() {
        return Stream.of(
                arguments(
                        "one item keeps one instance active and two on standby",
                        3,
                        1,
                        List.of(List.of(0), List.of(), List.of())),
                arguments("a single instance runs everything", 1, 5, List.of(List.of(0, 1, 2, 3, 4))),
                arguments(
                        "more instances than items leaves the last ones idle",
                        5,
                        3,
                        List.of(List.of(0), List.of(1), List.of(2), List.of(), List.of())),
                arguments(
                        "as many instances as items gives one each",
                        4,
                        4,
                        List.of(List.of(0), List.of(1), List.of(2), List.of(3))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("edgeCases")
    void handlesFewItemsAndFewInstances(
            String description, int instanceCount, int total, List<List<Integer>> expected) {
        List<String> instances = instances(instanceCount);

        Map<String, List<Integer>> result = strategy.shard(new ShardingRequest("job", total, instances));

        assertThat(result.keySet()).containsExactlyElementsOf(instances);
        assertThat(List.copyOf(result.values())).isEqualTo(expected);
    }

    @Test
    void returnsAnEmptyAssignmentWhenThereAreNoInstances() {
        assertThat(strategy.shard(new ShardingRequest("job", 3, List.of()))).isEmpty();
    }

    @Test
    void ignoresThePreviousAssignment() {
        ShardingRequest request = new ShardingRequest("job", 9, THREE, Map.of("instance-c", List.of(0, 1, 2)));

        assertThat(strategy.shard(request)).isEqualTo(strategy.shard(new ShardingRequest("job", 9, THREE)));
    }

    @Test
    void isTheDefaultStrategy() {
        assertThat(strategy.name()).isEqualTo("average").isEqualTo(ShardingStrategies.DEFAULT);
    }

    private static List<String> instances(int count) {
        return Stream.iterate('a', c -> (char) (c + 1))
                .limit(count)
                .map(c -> "instance-" + c)
                .toList();
    }
}
