package io.shardingjob.core.internal.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Seed 004's examples, with the difference that survivors keep their index. */
class DynamicShardingAssignmentTest {

    @Test
    void aThirdExecutorJoiningTwoGetsTheNewItem() {
        assertThat(DynamicSharding.assign(List.of("A", "B", "C"), Map.of("A", List.of(0), "B", List.of(1))))
                .isEqualTo(Map.of("A", List.of(0), "B", List.of(1), "C", List.of(2)));
    }

    @Test
    void whenOneOfThreeLeavesTheSurvivorsKeepTheirItemsWhereTheyStillExist() {
        Map<String, List<Integer>> three = Map.of("A", List.of(0), "B", List.of(1), "C", List.of(2));

        assertThat(DynamicSharding.assign(List.of("A", "B"), three))
                .isEqualTo(Map.of("A", List.of(0), "B", List.of(1)));
        assertThat(DynamicSharding.assign(List.of("B", "C"), three))
                .isEqualTo(Map.of("B", List.of(1), "C", List.of(0)));
        assertThat(DynamicSharding.assign(List.of("A", "C"), three))
                .isEqualTo(Map.of("A", List.of(0), "C", List.of(1)));
    }

    @Test
    void aJobTurnedDynamicKeepsEachInstancesLowestFreeItem() {
        Map<String, List<Integer>> average = Map.of("A", List.of(0, 1, 2), "B", List.of(3, 4, 5));

        assertThat(DynamicSharding.assign(List.of("A", "B"), average))
                .isEqualTo(Map.of("A", List.of(0), "B", List.of(1)));
    }

    @Test
    void theFirstAssignmentNumbersTheInstancesInOrder() {
        assertThat(DynamicSharding.assign(List.of("A", "B", "C"), Map.of()))
                .isEqualTo(Map.of("A", List.of(0), "B", List.of(1), "C", List.of(2)));
        assertThat(DynamicSharding.total(0)).isEqualTo(1);
    }

    @Test
    void instancesBeyondTheLimitOfItemsGetNoneUntilAnItemIsFree() {
        int limit = JobConfiguration.MAX_SHARDING_TOTAL_COUNT;
        List<String> instances = instances(limit + 1);

        Map<String, List<Integer>> first = DynamicSharding.assign(instances, Map.of());

        assertThat(DynamicSharding.total(instances.size())).isEqualTo(limit);
        assertThat(first.values().stream().flatMap(List::stream))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, limit).boxed().toList());
        assertThat(first.get(instances.get(limit))).isEmpty();
        Map<String, List<Integer>> afterTheFirstLeft = DynamicSharding.assign(instances.subList(1, limit + 1), first);
        assertThat(afterTheFirstLeft.get(instances.get(limit))).containsExactly(0);
        assertThat(afterTheFirstLeft.get(instances.get(1))).containsExactly(1);
    }

    private static List<String> instances(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> String.format("i%05d", i))
                .toList();
    }
}
