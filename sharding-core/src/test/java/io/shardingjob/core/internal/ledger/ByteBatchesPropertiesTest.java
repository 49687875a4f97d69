package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** How a ledger request is split under ZooKeeper's request size, over random sizes and limits. */
class ByteBatchesPropertiesTest {

    @Property
    void theRunsHoldEveryElementOnceInOrder(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 500) Integer> sizes,
            @ForAll @IntRange(min = 1, max = 1_000) int limit) {
        List<List<Integer>> runs = ByteBatches.split(sizes, Integer::intValue, limit);

        assertThat(runs.stream().flatMap(List::stream).toList()).isEqualTo(sizes);
        assertThat(runs).noneMatch(List::isEmpty);
    }

    @Property
    void noRunExceedsTheLimitUnlessOneElementDoesAlone(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 500) Integer> sizes,
            @ForAll @IntRange(min = 1, max = 1_000) int limit) {
        for (List<Integer> run : ByteBatches.split(sizes, Integer::intValue, limit)) {
            assertThat(total(run) <= limit || run.size() == 1)
                    .as("run %s under %d", run, limit)
                    .isTrue();
        }
    }

    @Property
    void aRunEndsOnlyWhereTheNextElementWouldNotFit(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 500) Integer> sizes,
            @ForAll @IntRange(min = 1, max = 1_000) int limit) {
        List<List<Integer>> runs = ByteBatches.split(sizes, Integer::intValue, limit);

        for (int run = 0; run + 1 < runs.size(); run++) {
            assertThat(total(runs.get(run)) + runs.get(run + 1).get(0)).isGreaterThan(limit);
        }
    }

    @Test
    void nothingMakesNoRun() {
        assertThat(ByteBatches.split(List.<Integer>of(), Integer::intValue, 10)).isEmpty();
    }

    @Test
    void aThousandClaimsOfAboutTwoHundredThirtyBytesGoInOneRequest() {
        List<Integer> claims = java.util.Collections.nCopies(1_000, 230);

        assertThat(ByteBatches.split(claims, Integer::intValue)).hasSize(1);
    }

    private static long total(List<Integer> run) {
        return run.stream().mapToLong(Integer::longValue).sum();
    }
}
