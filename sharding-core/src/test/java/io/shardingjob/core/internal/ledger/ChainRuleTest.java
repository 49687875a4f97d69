package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.ChainRule.Decision;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChainRuleTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T00:00:00Z");

    private static final Follower MERGE = new Follower("merge", FollowOn.SUCCESS, List.of("fast", "slow"), false);

    /** A fire whose item i has a claim in the i-th state of {@code states} ({@code -} for no claim). */
    private static FireView fire(String states) {
        Map<Integer, Claim> claims = new TreeMap<>();
        String[] each = states.trim().split(" ");
        for (int item = 0; item < each.length; item++) {
            if (!each[item].equals("-")) {
                ClaimState state = ClaimState.valueOf(each[item]);
                claims.put(
                        item,
                        Claim.first(item, FIRE, "a", 7, ExecutionSource.NORMAL, 1, each.length, FIRE)
                                .with(state, state.isOpen() ? null : FIRE.plusSeconds(1)));
            }
        }
        return new FireView(FIRE, claims);
    }

    @ParameterizedTest(name = "[{0}] due {1}: success {2}, completion {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                // the upstream fire's claims, item 0 first | due | success | completion
                "DONE DONE DONE                           | 9   | true    | true",
                "DONE FAILED DONE                         | 9   | false   | true",
                "DONE SKIPPED DONE                        | 9   | false   | true",
                "DONE DONE COALESCED                      | 9   | false   | true",
                "DONE DONE FAILED                         | 2   | true    | true",
                "DONE DONE DONE                           | 0   | false   | true",
            })
    void anUpstreamFireHoldsOnSuccessOnlyWhenEveryDueItemSucceeded(
            String states, int due, boolean success, boolean completion) {
        assertThat(ChainRule.holds(FollowOn.SUCCESS, fire(states), due)).isEqualTo(success);
        assertThat(ChainRule.holds(FollowOn.COMPLETION, fire(states), due)).isEqualTo(completion);
    }

    @Test
    void anUpstreamFireItsOwnUpstreamAbandonedHoldsNeitherWay() {
        FireView abandoned = new FireView(
                FIRE,
                Map.of(),
                "",
                0,
                FireOrigin.after("a", List.of(), false, "root").abandonedBy("a"));

        assertThat(ChainRule.holds(FollowOn.COMPLETION, abandoned, 9)).isFalse();
        assertThat(ChainRule.holds(FollowOn.SUCCESS, abandoned, 9)).isFalse();
    }

    @Test
    void theFirstUpstreamToCompleteCreatesTheFireAwaitingTheOthersAndTheLastAnnouncesIt() {
        Decision first = ChainRule.decide("fast", "root", MERGE, true, null, true);

        assertThat(first.create()).isNotNull();
        assertThat(first.create().awaiting()).containsExactly("slow");
        assertThat(first.announce()).isFalse();

        Decision last = ChainRule.decide("slow", "root", MERGE, true, first.create(), true);

        assertThat(last.update().after()).containsExactly("fast", "slow");
        assertThat(last.update().awaiting()).isEmpty();
        assertThat(last.announce()).isTrue();
    }

    @Test
    void aCompletionRecordedBeforeOrAFollowersOwnFireChangesNothing() {
        FireOrigin recorded = FireOrigin.after("fast", MERGE.upstreams(), true, "root");

        assertThat(ChainRule.decide("fast", "root", MERGE, true, recorded, true))
                .isEqualTo(Decision.NOTHING);
        assertThat(ChainRule.decide("fast", "root", MERGE, true, FireOrigin.SCHEDULED, true))
                .isEqualTo(Decision.NOTHING);
        assertThat(ChainRule.decide("fast", "root", MERGE, true, FireOrigin.manual("x"), true))
                .isEqualTo(Decision.NOTHING);
    }

    @Test
    void anUpstreamThatFailedRecordsNothingAloneAndAbandonsAFireOthersStarted() {
        assertThat(ChainRule.decide("slow", "root", MERGE, false, null, true)).isEqualTo(Decision.NOTHING);

        Decision abandoned = ChainRule.decide(
                "slow", "root", MERGE, false, FireOrigin.after("fast", MERGE.upstreams(), true, "root"), true);

        assertThat(abandoned.update().isAbandoned()).isTrue();
        assertThat(abandoned.announce()).isFalse();
    }

    @Test
    void anUpstreamThatAbandonedAFireResumesItWhenARerunMadeItsFireSucceed() {
        FireOrigin abandoned =
                FireOrigin.after("fast", MERGE.upstreams(), true, "root").abandonedBy("slow");

        Decision resumed = ChainRule.decide("slow", "root", MERGE, true, abandoned, true);

        assertThat(resumed.update().isAbandoned()).isFalse();
        assertThat(resumed.update().after()).containsExactly("fast", "slow");
        assertThat(resumed.announce()).isTrue();
        assertThat(ChainRule.decide("fast", "root", MERGE, true, abandoned, true))
                .isEqualTo(Decision.NOTHING);
    }

    @Test
    void aFireRecordedWithNoInstanceOfTheFollowerRegisteredIsMadeUpUnderItsMisfirePolicy() {
        Follower export = new Follower("export", FollowOn.SUCCESS, List.of("settle"), false);

        assertThat(ChainRule.decide("settle", "root", export, true, null, false)
                        .create()
                        .runsUnderEveryPolicy())
                .isFalse();
        assertThat(ChainRule.decide("settle", "root", export, true, null, true)
                        .create()
                        .runsUnderEveryPolicy())
                .isTrue();
    }

    @ParameterizedTest(name = "{0} upstream {1}, recorded {2}, completed {3} -> {4}")
    @CsvSource({
        "SUCCESS,    DONE,      false, false, HAND_ON",
        "SUCCESS,    RUNNING,   false, false, NONE",
        "SUCCESS,    RUNNING,   false, true,  SKIP",
        "SUCCESS,    FAILED,    false, false, NONE",
        "SUCCESS,    FAILED,    false, true,  SKIP",
        "SUCCESS,    SKIPPED,   false, true,  SKIP",
        "COMPLETION, FAILED,    false, false, HAND_ON",
        "COMPLETION, HANDED_ON, false, false, NONE",
        "SUCCESS,    DONE,      true,  true,  NONE",
    })
    void anItemWiseFollowersItemIsHandedOnOnceItsUpstreamItemEndedAsItFollowsItAndSkippedOnceTheFireCompletedWithout(
            FollowOn on, ClaimState upstream, boolean recorded, boolean completed, ChainRule.ItemRecord expected) {
        Claim claim = fire(upstream.name()).claims().get(0);

        assertThat(ChainRule.itemWise(on, claim, recorded, completed)).isEqualTo(expected);
    }

    @Test
    void anItemWiseFollowersFireStopsAwaitingWhenItsUpstreamCompletesWhateverTheOutcome() {
        Follower export = new Follower("export", FollowOn.SUCCESS, List.of("settle"), true);
        FireOrigin awaiting = ChainRule.itemWiseAwaiting("settle", "settle");

        Decision failed = ChainRule.decide("settle", "root", export, false, awaiting, true);

        assertThat(failed.update().isAwaiting()).isFalse();
        assertThat(failed.update().isAbandoned()).isFalse();
        assertThat(failed.announce()).isTrue();
        assertThat(ChainRule.decide("settle", "root", export, true, failed.update(), true))
                .isEqualTo(Decision.NOTHING);
        assertThat(ChainRule.decide("settle", "root", export, false, null, true)
                        .create()
                        .isAwaiting())
                .isFalse();
    }

    @ParameterizedTest(name = "[{0}] watermark {1} open {2}, horizon {3} -> {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                // upstream note (- no node) | watermark | open | horizon | may still complete
                "completing 1f               | 100       | -    | 0       | true",
                "completed a                 | 0         | -    | 0       | false",
                "''                          | 0         | -    | 0       | true",
                "-                           | 5         | -    | 0       | true",
                "-                           | 10        | -    | 0       | false",
                "-                           | 20        | 10   | 0       | true",
                "-                           | 5         | -    | 11      | false",
                "-                           | -         | -    | 0       | true",
            })
    void anAwaitedUpstreamMayStillCompleteWhileItsFireIsOpenOrMayStillCome(
            String note, String watermark, String open, int horizon, boolean expected) {
        Instant fireTime = FIRE.plusSeconds(10);
        Watermark mark = watermark.equals("-")
                ? null
                : new Watermark(
                        FIRE.plusSeconds(Long.parseLong(watermark)),
                        open.equals("-") ? List.of() : List.of(FIRE.plusSeconds(Long.parseLong(open))));

        assertThat(ChainRule.canStillComplete(
                        fireTime, mark, note.equals("-") ? null : note, FIRE.plusSeconds(horizon)))
                .isEqualTo(expected);
    }

    /**
     * Over any order of the upstreams' completions, each possibly written again (a completer taken over repeats its
     * request), the follower's fire is created once, announced once exactly when every upstream held, never announced
     * when one did not, and ends naming every upstream that held.
     */
    @Property(tries = 500)
    void everyOrderOfCompletionsRecordsTheFollowersFireOnceAndAnnouncesItOnceWhenAllHeld(
            @ForAll("completions") List<Completion> completions) {
        List<String> upstreams = List.of("u0", "u1", "u2");
        Follower follower = new Follower("down", FollowOn.SUCCESS, upstreams, false);
        Map<String, Boolean> held = new TreeMap<>();
        FireOrigin node = null;
        int created = 0;
        int announced = 0;
        for (Completion completion : completions) {
            String upstream = upstreams.get(completion.upstream());
            // An upstream fire completes once; a repeat writes what the first decided.
            boolean holds = held.computeIfAbsent(upstream, name -> completion.holds());
            Decision decision = ChainRule.decide(upstream, "u0", follower, holds, node, true);
            if (decision.create() != null) {
                assertThat(node).isNull();
                node = decision.create();
                created++;
            } else if (decision.update() != null) {
                node = decision.update();
            }
            announced += decision.announce() ? 1 : 0;
        }
        boolean allHeld = held.size() == upstreams.size() && !held.containsValue(false);
        assertThat(created).isLessThanOrEqualTo(1);
        assertThat(announced).isEqualTo(allHeld ? 1 : 0);
        if (allHeld) {
            assertThat(node.after()).containsExactlyInAnyOrderElementsOf(upstreams);
            assertThat(node.isAwaiting()).isFalse();
        }
        if (node != null && held.containsValue(false)) {
            List<String> before = new ArrayList<>();
            for (Completion completion : completions) {
                before.add(upstreams.get(completion.upstream()));
            }
            assertThat(node.isAbandoned() || node.isAwaiting())
                    .as("a fire with a failed upstream never runs: %s", before)
                    .isTrue();
        }
    }

    record Completion(int upstream, boolean holds) {}

    @Provide
    Arbitrary<List<Completion>> completions() {
        return Arbitraries.integers()
                .between(0, 2)
                .flatMap(upstream ->
                        Arbitraries.of(true, true, true, false).map(holds -> new Completion(upstream, holds)))
                .list()
                .ofMinSize(1)
                .ofMaxSize(8);
    }
}
