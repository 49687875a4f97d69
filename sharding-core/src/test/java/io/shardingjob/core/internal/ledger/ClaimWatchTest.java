package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A watch on another instance's claim, as the new owner of an item leaves one on the run its old owner still has going,
 * against a real ZooKeeper server: it tells of the run's end without anybody asking again.
 */
class ClaimWatchTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("handed");

    private final Instant fire = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private final AtomicInteger told = new AtomicInteger();

    private final Watcher counting = event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
            told.incrementAndGet();
        }
    };

    private LedgerParts oldOwner;

    private LedgerParts newOwner;

    private Claim running;

    @BeforeEach
    void anItemRunsOnItsOldOwner() throws Exception {
        JobStructure.ensure(newClient(), List.of(NODES), List::of);
        oldOwner = LedgerParts.of(newClient(), NODES);
        newOwner = LedgerParts.of(newClient(), NODES);
        long session = oldOwner.proof().sessionId();
        Claim claimed = oldOwner.claims()
                .claimAsync(fire, List.of(Claim.first(3, fire, "old", session, ExecutionSource.NORMAL, 1, 4, fire)))
                .join()
                .won()
                .get(3);
        running = oldOwner.claims()
                .commitAsync(List.of(claimed.startedAt(fire)), Instant.EPOCH, List.of())
                .join()
                .written()
                .written()
                .get(0);
    }

    @Test
    void theNewOwnerIsToldOnceTheOldOwnersRunEndsAndOnlyOnceHoweverOftenItWatched() throws Exception {
        Claim seen = newOwner.reads().readClaimAsync(fire, 3).join().orElseThrow();

        assertThat(newOwner.reads().watchAsync(seen, counting).join())
                .as("still as read")
                .isTrue();
        assertThat(newOwner.reads().watchAsync(seen, counting).join()).isTrue();
        oldOwner.claims()
                .commitAsync(List.of(running.with(ClaimState.DONE, fire.plusSeconds(1))), Instant.EPOCH, List.of())
                .join();

        await().atMost(Duration.ofSeconds(10)).until(() -> told.get() > 0);
        // Watch events come before the session's later answers: by this read's, a second watch would have told.
        newOwner.reads().readClaimAsync(fire, 3).join();
        assertThat(told.get()).as("one watch for the one watcher").isEqualTo(1);
    }

    @Test
    void aClaimWrittenSinceItWasReadIsSaidToHaveChangedRatherThanWaitedFor() {
        Claim seen = newOwner.reads().readClaimAsync(fire, 3).join().orElseThrow();
        oldOwner.claims()
                .commitAsync(List.of(running.with(ClaimState.DONE, fire.plusSeconds(1))), Instant.EPOCH, List.of())
                .join();

        assertThat(newOwner.reads().watchAsync(seen, counting).join()).isFalse();
    }

    @Test
    void aClaimGoneSinceItWasReadIsSaidToHaveChanged() throws Exception {
        Claim seen = newOwner.reads().readClaimAsync(fire, 3).join().orElseThrow();
        newClient().delete().deletingChildrenIfNeeded().forPath(NODES.ledgerFire(fire));

        assertThat(newOwner.reads().watchAsync(seen, counting).join()).isFalse();
    }
}
