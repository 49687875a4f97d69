package io.shardingjob.core.sharding.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OdevityByNameHashStrategyTest {

    private static final List<String> THREE = List.of("instance-a", "instance-b", "instance-c");

    private final ShardingStrategy strategy = new OdevityByNameHashStrategy();

    @ParameterizedTest(name = "job {0} (odd hash: {1}) -> a={2} b={3} c={4}")
    @CsvSource(delimiter = '|', textBlock = """
            # job    | odd hash | instance-a | instance-b | instance-c
            orders   | true     | []         | [1]        | [0]
            invoices | false    | [0]        | [1]        | []
            """)
    void countsInstancesFromTheHighestIdWhenTheJobNameHashIsOdd(
            String jobName, boolean oddHash, String first, String middle, String last) {
        assertThat((jobName.hashCode() & 1) != 0).as("parity of %s", jobName).isEqualTo(oddHash);

        Map<String, List<Integer>> result = strategy.shard(new ShardingRequest(jobName, 2, THREE));

        assertThat(result.keySet()).containsExactlyElementsOf(THREE);
        assertThat(List.copyOf(result.values()).stream().map(List::toString).toList())
                .containsExactly(first, middle, last);
    }

    @Test
    void isAverageAllocationWhenTheJobNameHashIsEven() {
        ShardingRequest request = new ShardingRequest("invoices", 10, THREE);

        assertThat(strategy.shard(request)).isEqualTo(new AverageAllocationStrategy().shard(request));
    }

    @Test
    void returnsAnEmptyAssignmentWhenThereAreNoInstances() {
        assertThat(strategy.shard(new ShardingRequest("orders", 3, List.of()))).isEmpty();
    }
}
