package io.shardingjob.core.internal.scheduling.fire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.scheduling.fire.ItemRun.State;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** A run's states move only along their transitions, and the run alone holds its claim as its writes answered it. */
class ItemRunTest {

    private static final Instant FIRE = Instant.parse("2026-11-29T02:00:00Z");

    private static final long SESSION = 7;

    @Test
    void aRunGoesFromItsClaimThroughItsStartAndItsCodeToItsRecordedEnd() {
        ItemRun run = run(claim());
        Claim written = claim().startedAt(FIRE);

        run.started(written);
        assertThat(run.state()).isEqualTo(State.STARTED);
        run.entering();
        assertThat(run.state()).isEqualTo(State.RUNNING);
        run.ended(false);
        run.recorded();

        assertThat(run.state()).isEqualTo(State.RECORDED);
        assertThat(run.state().isFinal()).isTrue();
    }

    @Test
    void theClaimAsHeldIsTheLastVersionAWriteOfTheRunAnswered() {
        Claim claim = claim();
        ItemRun run = run(claim);
        Claim started = claim.startedAt(FIRE);
        Claim retried = started.atRetry(1);

        assertThat(run.held()).isSameAs(claim);
        run.started(started);
        run.entering();
        run.rewritten(retried);

        assertThat(run.held()).isSameAs(retried);
        assertThat(run.claim())
                .as("the key of its item-fire stays the claim it was handed on with")
                .isSameAs(claim);
    }

    @Test
    void aRunThatDidNotStartLeavesHandedOnSkippedLostUnansweredOrDroppedButNeverEnds() {
        for (State exit : EnumSet.of(State.HANDED_ON, State.SKIPPED, State.LOST, State.UNANSWERED, State.DROPPED)) {
            ItemRun run = run(claim());
            run.exit(exit);
            assertThat(run.state()).isEqualTo(exit);
        }
        ItemRun unstarted = run(claim());
        assertThatIllegalStateException().isThrownBy(unstarted::entering);
        assertThatIllegalStateException().isThrownBy(() -> unstarted.ended(false));
    }

    @Test
    void aRunWhoseProofAgedBeforeTheJobsCodeIsHandedOnFromRunning() {
        ItemRun run = run(claim());
        run.started(claim().startedAt(FIRE));
        run.entering();

        run.exit(State.HANDED_ON);

        assertThat(run.state()).isEqualTo(State.HANDED_ON);
    }

    @Test
    void onlyTheStatesThatEndARunAreWaysOut() {
        assertThatIllegalArgumentException().isThrownBy(() -> run(claim()).exit(State.RUNNING));
        assertThatIllegalArgumentException().isThrownBy(() -> run(claim()).exit(State.STARTED));
    }

    @Test
    void aClaimStartedInThisSessionBeforeTheRunLeftItsQueueIsTheStartWrittenBeforeIt() {
        Claim started = claim().startedAt(FIRE);

        assertThat(run(started).startedBefore(SESSION)).isSameAs(started);
        assertThat(run(started).startedBefore(SESSION + 1)).isNull();
        assertThat(run(claim()).startedBefore(SESSION)).isNull();
    }

    @Test
    void anUnansweredStartIsRememberedAsNeverBegunUntilARunOfTheItemFireEntersTheJobsCode() {
        RunMemory memory = new RunMemory();
        Slot slot = new Slot(3, FIRE);

        ItemRun unanswered = run(memory, claim());
        assertThat(unanswered.attach()).isTrue();
        unanswered.exit(State.UNANSWERED);
        unanswered.release();
        assertThat(memory.neverBegan(slot)).isTrue();

        ItemRun next = run(memory, claim());
        assertThat(next.attach()).isTrue();
        next.started(claim().startedAt(FIRE));
        next.entering();
        assertThat(memory.neverBegan(slot)).isFalse();
    }

    @Test
    void aRunThatGivesItsClaimUpTakesItsFireOutOfTheFiresClaimedWholeButASkipDoesNot() {
        RunMemory memory = new RunMemory();
        memory.claimedWhole(FIRE, 1, SESSION);

        ItemRun skipped = run(memory, claim());
        skipped.exit(State.SKIPPED);
        skipped.release();
        assertThat(memory.isWhole(FIRE, 1, SESSION)).isTrue();

        run(memory, claim()).exit(State.HANDED_ON);
        assertThat(memory.isWhole(FIRE, 1, SESSION)).isFalse();
    }

    @Test
    void aReleasedRunFreesItsItemAndItsClaimIsNoLongerInFlight() {
        RunMemory memory = new RunMemory();
        memory.claimed(claim());
        ItemRun run = run(memory, claim());
        assertThat(run.attach()).isTrue();

        assertThat(run.release()).as("nothing owed").isNull();

        assertThat(memory.isIdle()).isTrue();
        assertThat(memory.inFlight()).isEmpty();
    }

    /** One step a run may be asked to take. */
    enum Step {
        START(run -> run.started(claim().startedAt(FIRE)), State.STARTED),
        ENTER(ItemRun::entering, State.RUNNING),
        END(run -> run.ended(false), State.ENDED),
        RECORD(ItemRun::recorded, State.RECORDED),
        HAND_ON(run -> run.exit(State.HANDED_ON), State.HANDED_ON),
        SKIP(run -> run.exit(State.SKIPPED), State.SKIPPED),
        LOSE(run -> run.exit(State.LOST), State.LOST),
        UNANSWER(run -> run.exit(State.UNANSWERED), State.UNANSWERED),
        DROP(run -> run.exit(State.DROPPED), State.DROPPED);

        private final Consumer<ItemRun> step;

        private final State to;

        Step(Consumer<ItemRun> step, State to) {
            this.step = step;
            this.to = to;
        }
    }

    @Property
    void whateverItIsAskedARunMovesOnlyAlongItsTransitionsAndNothingMovesItOnceItIsOver(
            @ForAll("histories") List<Step> history) {
        ItemRun run = run(claim());
        for (Step step : history) {
            State before = run.state();
            boolean allowed = before.next().contains(step.to);
            try {
                step.step.accept(run);
                assertThat(allowed).as("%s from %s", step, before).isTrue();
                assertThat(run.state()).isEqualTo(step.to);
            } catch (IllegalStateException refused) {
                assertThat(allowed).as("%s from %s", step, before).isFalse();
                assertThat(run.state()).isEqualTo(before);
            }
            if (before.isFinal()) {
                assertThat(run.state()).isEqualTo(before);
            }
        }
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        return Arbitraries.of(Step.class).list().ofMaxSize(12);
    }

    private static Claim claim() {
        return Claim.first(3, FIRE, "me", SESSION, ExecutionSource.NORMAL, 1, 4, FIRE);
    }

    private static ItemRun run(Claim claim) {
        return run(new RunMemory(), claim);
    }

    private static ItemRun run(RunMemory memory, Claim claim) {
        ShardingContext context = new ShardingContext(
                "settlement", "task", 4, 3, null, null, 1, "me", 1, FIRE, ExecutionSource.NORMAL, "settlement");
        return new ItemRun(memory, context, claim, memory.reserve(3), null, FireOrigin.SCHEDULED);
    }
}
