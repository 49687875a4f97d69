package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** How the watermark moves, and how the ledger node stores it. */
class WatermarkTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static final int ITEMS = 2;

    private static Instant t(int second) {
        return T0.plusSeconds(second);
    }

    private static Claim claim(int item, int second, ClaimState state) {
        return Claim.first(item, t(second), "a", 7, ExecutionSource.NORMAL, 1, ITEMS, t(second))
                .with(state, null);
    }

    private static FireView fire(int second, ClaimState first, ClaimState second1) {
        Map<Integer, Claim> claims = new HashMap<>();
        if (first != null) {
            claims.put(0, claim(0, second, first));
        }
        if (second1 != null) {
            claims.put(1, claim(1, second, second1));
        }
        return new FireView(t(second), claims);
    }

    private static Watermark advance(Watermark previous, List<FireView> fires, Instant openBefore) {
        return Watermark.advance(previous, fires, fireTime -> Integer.MAX_VALUE, openBefore);
    }

    @Test
    void passesSettledFiresAndStopsAtTheFirstOneStillOpen() {
        Watermark next = advance(
                new Watermark(t(0), Set.of()),
                List.of(
                        fire(1, ClaimState.DONE, ClaimState.DONE),
                        fire(2, ClaimState.RUNNING, ClaimState.DONE),
                        fire(3, ClaimState.DONE, ClaimState.DONE)),
                t(2));

        assertThat(next).isEqualTo(new Watermark(t(1), Set.of()));
    }

    @Test
    void passesAFireWhoseRunOutlivedTheRetentionAndListsItStillOpen() {
        Watermark next = advance(
                new Watermark(t(0), Set.of()),
                List.of(
                        fire(1, ClaimState.DONE, ClaimState.DONE),
                        fire(2, ClaimState.RUNNING, ClaimState.DONE),
                        fire(3, ClaimState.DONE, ClaimState.DONE),
                        fire(4, ClaimState.DONE, ClaimState.RUNNING)),
                t(4));

        // Fire 4 is not older than the retention yet: it holds the watermark back as any running fire does.
        assertThat(next).isEqualTo(new Watermark(t(3), Set.of(t(2))));
    }

    @Test
    void neverPassesAFireWithAnItemNobodyClaimedHoweverOld() {
        Watermark next = advance(
                new Watermark(t(0), Set.of()),
                List.of(fire(1, ClaimState.RUNNING, null), fire(2, ClaimState.DONE, ClaimState.DONE)),
                t(100));

        assertThat(next).isEqualTo(new Watermark(t(0), Set.of()));
    }

    @Test
    void passesAFireAwaitingAnUpstreamListingItOpenUntilItRanOrWasAbandoned() {
        FireOrigin awaiting = FireOrigin.after("fast", List.of("fast", "slow"), false, "root");
        FireView waits = new FireView(t(2), Map.of(), "", 0, awaiting);

        Watermark next = advance(
                new Watermark(t(0), Set.of()),
                List.of(fire(1, ClaimState.DONE, ClaimState.DONE), waits, fire(3, ClaimState.DONE, ClaimState.DONE)),
                t(0));

        assertThat(next).isEqualTo(new Watermark(t(3), Set.of(t(2))));
        FireView abandoned = new FireView(t(2), Map.of(), "", 0, awaiting.abandonedBy("slow"));
        assertThat(advance(next, List.of(abandoned), t(0))).isEqualTo(new Watermark(t(3), Set.of()));
        FireView ready = new FireView(t(2), Map.of(), "", 0, awaiting.completedBy("slow"));
        assertThat(advance(next, List.of(ready), t(0))).isEqualTo(next);
    }

    @Test
    void keepsAStillOpenFireListedUntilAReadShowsItSettled() {
        Watermark previous = new Watermark(t(3), Set.of(t(1), t(2)));

        Watermark next = advance(
                previous,
                List.of(fire(1, ClaimState.DONE, ClaimState.DONE), fire(4, ClaimState.DONE, ClaimState.DONE)),
                t(0));

        // Fire 1 was read settled; fire 2 was not read this time, and stays listed.
        assertThat(next).isEqualTo(new Watermark(t(4), Set.of(t(2))));
    }

    @Test
    void storesTheWatermarkWithItsStillOpenFiresAndReadsTheOlderOneLineData() {
        Watermark mark = new Watermark(t(9), Set.of(t(2), t(5)));

        assertThat(Watermark.decode(mark.encode())).isEqualTo(mark);
        assertThat(new String(mark.encode(), StandardCharsets.UTF_8))
                .isEqualTo(
                        "settled=" + t(9).toEpochMilli() + "\nopen=" + t(2).toEpochMilli() + "," + t(5).toEpochMilli());
        assertThat(Watermark.decode(("settled=" + t(9).toEpochMilli()).getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new Watermark(t(9), Set.of()));
        assertThat(Watermark.decode(null)).isEqualTo(new Watermark(Instant.EPOCH, Set.of()));
    }

    /**
     * Over random fires (each item unclaimed, open or ended), a watermark that retention lets pass open fires: every fire
     * it passed is settled or listed still open, none it passed has an item nobody claimed, every listed fire is one it
     * saw open, and it stops only at a fire it may not pass.
     */
    @Property(tries = 2000)
    void passesOnlySettledOrFullyClaimedOldFiresAndListsEveryOpenOneItPassed(
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 0, max = 8) Integer> itemStates,
            @ForAll @IntRange(min = 0, max = 12) int retentionEdge) {
        ClaimState[] states = {
            null,
            ClaimState.RESERVED,
            ClaimState.RUNNING,
            ClaimState.HANDED_ON,
            ClaimState.RELEASED,
            ClaimState.DONE,
            ClaimState.FAILED,
            ClaimState.COALESCED,
            ClaimState.SKIPPED
        };
        List<FireView> fires = new ArrayList<>();
        for (int i = 0; i + 1 < itemStates.size(); i += 2) {
            fires.add(fire(i / 2 + 1, states[itemStates.get(i)], states[itemStates.get(i + 1)]));
        }
        Instant openBefore = t(retentionEdge);

        Watermark next = advance(new Watermark(t(0), Set.of()), fires, openBefore);

        SortedSet<Instant> seenOpen = new TreeSet<>();
        for (FireView fire : fires) {
            boolean passed = !fire.fireTime().isAfter(next.settled());
            if (passed) {
                assertThat(fire.isClaimed(Integer.MAX_VALUE))
                        .as("%s passed", fire.fireTime())
                        .isTrue();
                assertThat(fire.isSettled() || next.stillOpen().contains(fire.fireTime()))
                        .as("%s passed: settled or still open", fire.fireTime())
                        .isTrue();
                if (!fire.isSettled()) {
                    assertThat(fire.fireTime()).isBefore(openBefore);
                    seenOpen.add(fire.fireTime());
                }
            }
        }
        assertThat(next.stillOpen()).isEqualTo(seenOpen);
        fires.stream()
                .filter(fire -> fire.fireTime().isAfter(next.settled()))
                .findFirst()
                .ifPresent(stop -> assertThat(stop.isSettled()
                                || (stop.fireTime().isBefore(openBefore) && stop.isClaimed(Integer.MAX_VALUE)))
                        .as("stopped at %s", stop.fireTime())
                        .isFalse());
    }
}
