package io.shardingjob.core.internal.scheduling.fire;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Which misfires the listener is told of: each item-fire once, and none of a fire the watermark already passed. */
class MisfireReportsTest {

    private static final Instant FIRST = Instant.ofEpochSecond(1_000);

    private static final Instant SECOND = FIRST.plusSeconds(1);

    private static final Instant THIRD = FIRST.plusSeconds(2);

    private final List<Instant> told = new CopyOnWriteArrayList<>();

    private final MisfireReports reports = new MisfireReports("job", new MisfireListener() {
        @Override
        public void fireMissed(String jobName, Instant fireTime, List<Integer> items, String detail) {
            told.add(fireTime);
        }
    });

    @Test
    void eachMissedFireIsToldOnceHoweverManyAuditsDecideOnIt() {
        MakeUpPlan plan = coalescedInto(SECOND, FIRST);

        reports.missed(plan, MisfirePolicy.ONCE);
        reports.missed(plan, MisfirePolicy.ONCE);

        assertThat(told).containsExactly(FIRST, SECOND);
    }

    @Test
    void anAuditThatReadTheLedgerBeforeTheWatermarkPassedItsFiresTellsNothingOfThem() {
        MakeUpPlan stale = coalescedInto(SECOND, FIRST);
        reports.missed(stale, MisfirePolicy.ONCE);

        // The make-up's claims were written and the keeper passed both fires; an audit that read before decides again.
        reports.forgetThrough(SECOND);
        reports.missed(stale, MisfirePolicy.ONCE);
        reports.missed(coalescedInto(THIRD, SECOND), MisfirePolicy.ONCE);

        assertThat(told).containsExactly(FIRST, SECOND, THIRD);
    }

    /** The plan of an audit that makes up item 0 of {@code madeUp} and folds {@code folded} into it. */
    private static MakeUpPlan coalescedInto(Instant madeUp, Instant folded) {
        Slot run = new Slot(0, madeUp);
        return new MakeUpPlan(List.of(run), Map.of(new Slot(0, folded), run), List.of(), List.of());
    }
}
