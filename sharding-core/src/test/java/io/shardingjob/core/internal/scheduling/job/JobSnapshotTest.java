package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobSnapshotTest {

    private static final JobConfiguration CONFIG =
            JobConfiguration.builder("reports").shardingTotalCount(4).build();

    private static final ShardingService.Versioned FIRST =
            new ShardingService.Versioned(new Assignment(1, 4, Map.of("a", List.of(0, 1), "b", List.of(2, 3))), 5);

    private static final ShardingService.Versioned NEXT =
            new ShardingService.Versioned(new Assignment(2, 4, Map.of("a", List.of(0, 1, 2, 3))), 6);

    private static JobSnapshot of(boolean leftOut) {
        return new JobSnapshot(7, true, CONFIG, FIRST, Set.of(0, 1), leftOut, Set.of(3));
    }

    @Test
    void theSameMomentUnderANewerAssignmentOwnsWhatThatAssignmentGivesAndKeepsEverythingElse() {
        JobSnapshot under = of(false).under(NEXT, "a");

        assertThat(under.assignment()).isEqualTo(NEXT);
        assertThat(under.owned()).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(under.sessionId()).isEqualTo(7);
        assertThat(under.disabledItems()).containsExactly(3);
    }

    @Test
    void aDisabledInstanceMayRunNoneOfTheItemsItOwns() {
        assertThat(of(false).runnable()).containsExactlyInAnyOrder(0, 1);
        assertThat(of(true).runnable()).isEmpty();
        assertThat(of(true).owned()).containsExactlyInAnyOrder(0, 1);
    }
}
