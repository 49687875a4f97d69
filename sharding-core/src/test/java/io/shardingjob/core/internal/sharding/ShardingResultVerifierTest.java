package io.shardingjob.core.internal.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ShardingResultVerifierTest {

    private static final ShardingRequest REQUEST = new ShardingRequest("billing", 4, List.of("a", "b"));
    private static final ShardingStrategy BUGGY = new Fixed();

    static Stream<Arguments> brokenResults() {
        return Stream.of(
                arguments(
                        "a duplicate item", Map.of("a", List.of(0, 1, 2), "b", List.of(2, 3)), "assigned item 2 twice"),
                arguments(
                        "an item twice on one instance",
                        Map.of("a", List.of(0, 1, 1), "b", List.of(2, 3)),
                        "assigned item 1 twice"),
                arguments("missing items", Map.of("a", List.of(0), "b", List.of(3)), "did not assign items [1, 2]"),
                arguments(
                        "an item beyond the count",
                        Map.of("a", List.of(0, 1, 4), "b", List.of(2, 3)),
                        "assigned item 4 outside 0..3 to 'a'"),
                arguments(
                        "a negative item",
                        Map.of("a", List.of(0, 1), "b", List.of(-1, 2, 3)),
                        "assigned item -1 outside 0..3 to 'b'"),
                arguments(
                        "an unknown instance",
                        Map.of("a", List.of(0, 1), "b", List.of(2), "c", List.of(3)),
                        "assigned items to unknown instances [c]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenResults")
    void rejectsABrokenAssignmentNamingTheStrategyAndTheJob(
            String description, Map<String, List<Integer>> result, String problem) {
        assertThatThrownBy(() -> ShardingResultVerifier.verified(BUGGY, REQUEST, result))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Sharding strategy 'buggy' for job 'billing' " + problem);
    }

    @Test
    void givesAnInstanceTheStrategyLeftOutAnEmptyList() {
        Map<String, List<Integer>> verified =
                ShardingResultVerifier.verified(BUGGY, REQUEST, Map.of("b", List.of(3, 0, 2, 1)));

        assertThat(verified).containsExactly(Map.entry("a", List.of()), Map.entry("b", List.of(0, 1, 2, 3)));
    }

    @Test
    void sortsItemsIntoTheRequestsInstanceOrderAndCannotBeModified() {
        Map<String, List<Integer>> result = new HashMap<>();
        result.put("b", new ArrayList<>(List.of(3, 1)));
        result.put("a", new ArrayList<>(List.of(2, 0)));

        Map<String, List<Integer>> verified = ShardingResultVerifier.verified(BUGGY, REQUEST, result);

        assertThat(verified).containsExactly(Map.entry("a", List.of(0, 2)), Map.entry("b", List.of(1, 3)));
        assertThatThrownBy(() -> verified.put("c", List.of())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> verified.get("a").add(9)).isInstanceOf(UnsupportedOperationException.class);
    }

    @ParameterizedTest(name = "{0} over {1} instances, {2} items")
    @CsvSource({
        "average, 3, 10", "average, 5, 3", "odevity, 3, 2", "odevity, 4, 9",
        "rotate, 3, 8", "rotate, 7, 60", "sticky, 3, 1", "sticky, 12, 59"
    })
    void acceptsEveryBuiltInStrategysAnswerUnchanged(String name, int instanceCount, int total) {
        List<String> instances = new ArrayList<>();
        for (int i = 1; i <= instanceCount; i++) {
            instances.add(String.format("instance-%02d", i));
        }
        ShardingRequest request = new ShardingRequest("orders", total, instances);
        ShardingStrategy strategy = ShardingStrategies.builtIns().get(name);
        Map<String, List<Integer>> result = strategy.shard(request);

        assertThat(ShardingResultVerifier.verified(strategy, request, result))
                .isEqualTo(result)
                .containsExactlyEntriesOf(new LinkedHashMap<>(result));
    }

    /** Stands for a custom strategy; the tests hand its answers to the verifier directly. */
    private static final class Fixed implements ShardingStrategy {

        @Override
        public String name() {
            return "buggy";
        }

        @Override
        public Map<String, List<Integer>> shard(ShardingRequest request) {
            return Map.of();
        }
    }
}
