package io.shardingjob.core.sharding.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RotateByNameHashStrategyTest {

    private static final List<String> THREE = List.of("instance-a", "instance-b", "instance-c");

    private final ShardingStrategy strategy = new RotateByNameHashStrategy();

    @ParameterizedTest(name = "job {0} (offset {1}), {2} items -> a={3} b={4} c={5}")
    @CsvSource(delimiter = '|', textBlock = """
            # job      | offset | items | instance-a | instance-b | instance-c
            payrollJob | 0      | 9     | [0, 1, 2]  | [3, 4, 5]  | [6, 7, 8]
            auditJob   | 1      | 9     | [6, 7, 8]  | [0, 1, 2]  | [3, 4, 5]
            notifyJob  | 2      | 9     | [3, 4, 5]  | [6, 7, 8]  | [0, 1, 2]
            payrollJob | 0      | 8     | [0, 1, 6]  | [2, 3, 7]  | [4, 5]
            auditJob   | 1      | 8     | [4, 5]     | [0, 1, 6]  | [2, 3, 7]
            notifyJob  | 2      | 8     | [2, 3, 7]  | [4, 5]     | [0, 1, 6]
            """)
    void startsTheAverageAllocationAtTheInstanceChosenByTheJobNameHash(
            String jobName, int offset, int total, String first, String middle, String last) {
        assertThat(Math.floorMod(jobName.hashCode(), 3))
                .as("offset of %s", jobName)
                .isEqualTo(offset);

        Map<String, List<Integer>> result = strategy.shard(new ShardingRequest(jobName, total, THREE));

        assertThat(result.keySet()).containsExactlyElementsOf(THREE);
        assertThat(List.copyOf(result.values()).stream().map(List::toString).toList())
                .containsExactly(first, middle, last);
    }

    @Test
    void survivesAJobNameWhoseHashIsIntegerMinValue() {
        String jobName = "polygenelubricants";
        assertThat(jobName.hashCode()).isEqualTo(Integer.MIN_VALUE);

        Map<String, List<Integer>> result = strategy.shard(new ShardingRequest(jobName, 9, THREE));

        assertThat(result.values().stream().flatMap(List::stream).toList())
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void returnsAnEmptyAssignmentWhenThereAreNoInstances() {
        assertThat(strategy.shard(new ShardingRequest("auditJob", 3, List.of())))
                .isEmpty();
    }
}
