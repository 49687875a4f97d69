package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.RerunRule.Reason;
import io.shardingjob.core.internal.ledger.RerunRule.Refused;
import io.shardingjob.core.internal.ledger.RerunRule.Reopen;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RerunRuleTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T00:00:00Z");

    private static final Instant NOW = FIRE.plusSeconds(60);

    /** A fire whose item i has a claim in the i-th state of {@code states} ({@code -} for no claim). */
    private static FireView fire(String states) {
        Map<Integer, Claim> claims = new TreeMap<>();
        String[] each = states.isBlank() ? new String[0] : states.trim().split(" ");
        for (int item = 0; item < each.length; item++) {
            if (!each[item].equals("-")) {
                claims.put(item, claim(item, ClaimState.valueOf(each[item])));
            }
        }
        return new FireView(FIRE, claims);
    }

    private static Claim claim(int item, ClaimState state) {
        return Claim.first(item, FIRE, "a", 7, ExecutionSource.NORMAL, 1, 4, FIRE)
                .with(state, state.isOpen() ? null : FIRE.plusSeconds(1))
                .atRetry(2);
    }

    @ParameterizedTest(name = "[{0}] -> {1} {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // the fire's claims, item 0 first          | verdict       | items
                "DONE FAILED DONE FAILED                     | REOPEN        | 1 3",
                "FAILED FAILED FAILED FAILED                 | REOPEN        | 0 1 2 3",
                "FAILED RUNNING DONE SKIPPED                 | REOPEN        | 0",
                "FAILED HANDED_ON RESERVED RELEASED          | REOPEN        | 0",
                "DONE DONE COALESCED SKIPPED                 | NO_FAILURE    | ''",
                "DONE HANDED_ON DONE RUNNING                 | RUNNING       | 1 3",
                "RESERVED RELEASED DONE -                    | RUNNING       | 0 1",
                "''                                          | NOT_IN_LEDGER | ''",
            })
    void reopensTheFailedClaimsOfAFireAndRefusesOtherwise(String states, String verdict, String items) {
        RerunRule.Verdict decided = RerunRule.decide(fire(states), NOW);

        List<Integer> expected = items.isBlank()
                ? List.of()
                : Arrays.stream(items.split(" ")).map(Integer::valueOf).toList();
        if (verdict.equals("REOPEN")) {
            assertThat(decided)
                    .isInstanceOfSatisfying(
                            Reopen.class, reopen -> assertThat(reopen.items()).isEqualTo(expected));
        } else {
            assertThat(decided).isEqualTo(new Refused(Reason.valueOf(verdict), expected));
        }
    }

    @Test
    void aFireStillToComeIsRefusedWhateverItHolds() {
        assertThat(RerunRule.decide(fire("FAILED"), FIRE.minusMillis(1)))
                .isEqualTo(new Refused(Reason.NOT_DUE_YET, List.of()));
    }

    @Test
    void aReopenedClaimIsHandedOnUnstartedAsARetryThatTheItemsOwnerTakesOverWithFailoverOnOrOff() {
        Claim failed = claim(2, ClaimState.FAILED);

        Claim reopened = RerunRule.reopened(failed, NOW);

        assertThat(reopened.state()).isEqualTo(ClaimState.HANDED_ON);
        assertThat(reopened.source()).isEqualTo(ExecutionSource.RETRY);
        assertThat(reopened.retry()).isZero();
        assertThat(reopened.ended()).isNull();
        assertThat(reopened.fireTime()).isEqualTo(FIRE);
        assertThat(reopened.version()).isEqualTo(failed.version());
        assertThat(TakeOverRule.toTakeOver(List.of(reopened), Map.of("b", 9L), Set.of(2), false))
                .containsExactly(reopened);
        assertThat(TakeOverRule.runsOrphan(reopened, false)).isTrue();
    }

    @Property
    void aReRunReopensExactlyTheFailedClaimsAndNeverAnOpenOne(@ForAll("fires") List<ClaimState> states) {
        Map<Integer, Claim> claims = new TreeMap<>();
        for (int item = 0; item < states.size(); item++) {
            claims.put(item, claim(item, states.get(item)));
        }

        RerunRule.Verdict decided = RerunRule.decide(new FireView(FIRE, claims), NOW);

        List<Integer> failed = claims.values().stream()
                .filter(claim -> claim.state() == ClaimState.FAILED)
                .map(Claim::item)
                .toList();
        if (failed.isEmpty()) {
            assertThat(decided).isInstanceOf(Refused.class);
        } else {
            assertThat(decided).isInstanceOfSatisfying(Reopen.class, reopen -> {
                assertThat(reopen.items()).isEqualTo(failed);
                assertThat(reopen.failed()).noneMatch(claim -> claim.state().isOpen());
            });
        }
    }

    @Provide
    Arbitrary<List<ClaimState>> fires() {
        return Arbitraries.of(ClaimState.class).list().ofMinSize(1).ofMaxSize(12);
    }
}
