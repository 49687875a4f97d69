package io.shardingjob.core.sharding.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class StickyStrategyTest {

    private final ShardingStrategy sticky = new StickyStrategy();
    private final ShardingStrategy average = new AverageAllocationStrategy();

    @ParameterizedTest(name = "{0} instances, {1} items")
    @CsvSource({"1, 1", "3, 1", "3, 8", "3, 9", "3, 10", "4, 12", "5, 3", "7, 60", "12, 59"})
    void givesTheAverageAllocationWhenThereIsNoPreviousAssignment(int instanceCount, int total) {
        ShardingRequest request = new ShardingRequest("job", total, instances(instanceCount));

        assertThat(sticky.shard(request)).isEqualTo(average.shard(request));
    }

    @Test
    void givesTheAverageAllocationWhenNoPreviousOwnerSurvives() {
        Map<String, List<Integer>> previous = Map.of("gone-1", List.of(0, 1, 2, 3), "gone-2", List.of(4, 5, 6, 7));
        ShardingRequest request = new ShardingRequest("job", 8, instances(3), previous);

        assertThat(sticky.shard(request)).isEqualTo(average.shard(new ShardingRequest("job", 8, instances(3))));
    }

    static Stream<Arguments> joinSequences() {
        return Stream.of(
                arguments(12, 3, List.of(3, 2, 2)),
                arguments(10, 1, List.of(5, 3, 2, 2)),
                arguments(60, 2, List.of(20, 15, 12, 10, 8, 7)),
                arguments(2, 1, List.of(1, 0, 0)));
    }

    /** The newcomer always ranks last for the ceil slots, so each join moves exactly floor(n / k) items. */
    @ParameterizedTest(name = "{0} items, {1} instances, then one joins at a time moving {2}")
    @MethodSource("joinSequences")
    void movesOnlyTheNewcomersShareWhenInstancesJoinOneByOne(int total, int start, List<Integer> expectedMoves) {
        Map<String, List<Integer>> previous = sticky.shard(new ShardingRequest("job", total, instances(start)));
        List<Integer> moves = new ArrayList<>();
        for (int count = start + 1; count <= start + expectedMoves.size(); count++) {
            ShardingRequest request = new ShardingRequest("job", total, instances(count), previous);
            Map<String, List<Integer>> next = sticky.shard(request);
            assertBalanced(request, next);
            assertThat(moved(previous, next, total)).isEqualTo(minimumMoves(request));
            moves.add(moved(previous, next, total));
            previous = next;
        }
        assertThat(moves).isEqualTo(expectedMoves);
    }

    @Test
    void givesEveryInstanceThreeOfTwelveItemsMovingThreeWhenAFourthJoins() {
        Map<String, List<Integer>> before = sticky.shard(new ShardingRequest("job", 12, instances(3)));

        Map<String, List<Integer>> after = sticky.shard(new ShardingRequest("job", 12, instances(4), before));

        assertThat(moved(before, after, 12)).isEqualTo(3);
        assertThat(after.values()).allSatisfy(items -> assertThat(items).hasSize(3));
    }

    @ParameterizedTest(name = "{0} items over {1} instances, instance #{2} leaves, moving {3}")
    @CsvSource({"12, 4, 0, 3", "12, 4, 3, 3", "10, 4, 0, 3", "10, 4, 3, 2", "1, 3, 0, 1", "1, 3, 2, 0", "7, 7, 3, 1"})
    void movesOnlyTheLeaversItemsWhenAnInstanceLeaves(int total, int instanceCount, int leaver, int expectedMoves) {
        List<String> before = instances(instanceCount);
        Map<String, List<Integer>> previous = sticky.shard(new ShardingRequest("job", total, before));
        List<String> after = new ArrayList<>(before);
        after.remove(leaver);

        ShardingRequest request = new ShardingRequest("job", total, after, previous);
        Map<String, List<Integer>> next = sticky.shard(request);

        assertBalanced(request, next);
        assertThat(moved(previous, next, total)).isEqualTo(expectedMoves);
        after.forEach(survivor -> assertThat(next.get(survivor)).containsAll(previous.get(survivor)));
    }

    @Test
    void movesFarFewerItemsThanAverageAllocationOverAJoinAndLeaveSequence() {
        List<List<String>> sequence = List.of(
                List.of("a", "b", "c"),
                List.of("a", "b", "c", "d"),
                List.of("a", "b", "c", "d", "e"),
                List.of("a", "b", "c", "d", "e", "f"),
                List.of("a", "c", "d", "e", "f"),
                List.of("a", "c", "d", "f"),
                List.of("a", "c", "d", "f", "g"),
                List.of("c", "d", "f", "g"));
        int total = 24;
        Map<String, List<Integer>> stickyPrevious = Map.of();
        Map<String, List<Integer>> averagePrevious = Map.of();
        int stickyMoved = 0;
        int averageMoved = 0;
        for (List<String> instances : sequence) {
            ShardingRequest request = new ShardingRequest("job", total, instances, stickyPrevious);
            Map<String, List<Integer>> stickyNext = sticky.shard(request);
            Map<String, List<Integer>> averageNext = average.shard(request);
            if (!stickyPrevious.isEmpty()) {
                assertThat(moved(stickyPrevious, stickyNext, total)).isEqualTo(minimumMoves(request));
                stickyMoved += moved(stickyPrevious, stickyNext, total);
                averageMoved += moved(averagePrevious, averageNext, total);
            }
            stickyPrevious = stickyNext;
            averagePrevious = averageNext;
        }
        System.out.printf(
                "24 items, %d joins and leaves: sticky moved %d items, average allocation %d%n",
                sequence.size() - 1, stickyMoved, averageMoved);
        assertThat(stickyMoved).isLessThan(averageMoved);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void staysBalancedAndMovesTheFewestItemsOverRandomJoinsLeavesAndCountChanges(long seed) {
        Random random = new Random(seed);
        List<String> instances = new ArrayList<>();
        int nextId = 0;
        int total = 1 + random.nextInt(60);
        Map<String, List<Integer>> previous = Map.of();
        Map<String, List<Integer>> averagePrevious = Map.of();
        int stickyMoved = 0;
        int averageMoved = 0;
        for (int step = 0; step < 500; step++) {
            int change = random.nextInt(4);
            if (instances.isEmpty() || (change == 0 && instances.size() < 12)) {
                for (int joiners = 1 + random.nextInt(3); joiners > 0 && instances.size() < 12; joiners--) {
                    instances.add(String.format("instance-%04d", nextId++));
                }
            } else if (change == 1 && instances.size() > 1) {
                for (int leavers = 1 + random.nextInt(3); leavers > 0 && instances.size() > 1; leavers--) {
                    instances.remove(random.nextInt(instances.size()));
                }
            } else if (change == 2) {
                total = 1 + random.nextInt(60);
            }
            // Otherwise nothing changed, as when a reshard is forced: the bound is then zero.
            ShardingRequest request = new ShardingRequest("job", total, List.copyOf(instances), previous);

            Map<String, List<Integer>> next = sticky.shard(request);

            assertBalanced(request, next);
            assertThat(moved(previous, next, total)).as("step %d", step).isEqualTo(minimumMoves(request));
            Map<String, List<Integer>> averageNext = average.shard(request);
            stickyMoved += moved(previous, next, total);
            averageMoved += moved(averagePrevious, averageNext, total);
            previous = next;
            averagePrevious = averageNext;
        }
        System.out.printf(
                "seed %d, 500 random steps: sticky moved %d items, average allocation %d%n",
                seed, stickyMoved, averageMoved);
    }

    /** Every item exactly once, one entry per instance in request order, every size floor or ceil of the mean. */
    private static void assertBalanced(ShardingRequest request, Map<String, List<Integer>> result) {
        int total = request.shardingTotalCount();
        int count = request.instances().size();
        assertThat(result.keySet()).containsExactlyElementsOf(request.instances());
        assertThat(result.values().stream().flatMap(List::stream).sorted().toList())
                .isEqualTo(IntStream.range(0, total).boxed().toList());
        assertThat(result.values()).allSatisfy(items -> {
            assertThat(items).isSorted();
            assertThat(items.size()).isBetween(total / count, (total + count - 1) / count);
        });
        assertThat(result.values().stream().filter(items -> items.size() > total / count))
                .hasSize(total % count);
    }

    /** The lower bound, computed independently: the largest kept counts get the ceil slots, the rest must move. */
    private static int minimumMoves(ShardingRequest request) {
        int total = request.shardingTotalCount();
        int count = request.instances().size();
        List<Long> kept = request.instances().stream()
                .map(instance -> request.previousAssignment().getOrDefault(instance, List.of()).stream()
                        .filter(item -> item < total)
                        .count())
                .sorted(Comparator.reverseOrder())
                .toList();
        long stay = 0;
        for (int rank = 0; rank < count; rank++) {
            stay += Math.min(kept.get(rank), total / count + (rank < total % count ? 1 : 0));
        }
        return (int) (total - stay);
    }

    /** Items whose owner changed; a new item, or one whose owner left, counts as moved. */
    private static int moved(Map<String, List<Integer>> before, Map<String, List<Integer>> after, int total) {
        Map<Integer, String> ownerBefore = owners(before);
        Map<Integer, String> ownerAfter = owners(after);
        return (int) IntStream.range(0, total)
                .filter(item -> !ownerAfter.get(item).equals(ownerBefore.get(item)))
                .count();
    }

    private static Map<Integer, String> owners(Map<String, List<Integer>> assignment) {
        Map<Integer, String> owners = new HashMap<>();
        assignment.forEach((instance, items) -> items.forEach(item -> owners.put(item, instance)));
        return owners;
    }

    private static List<String> instances(int count) {
        return IntStream.rangeClosed(1, count)
                .mapToObj(i -> String.format("instance-%02d", i))
                .toList();
    }
}
