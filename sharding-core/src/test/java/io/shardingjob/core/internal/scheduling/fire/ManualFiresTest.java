package io.shardingjob.core.internal.scheduling.fire;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.internal.ledger.AnnouncedFires;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/**
 * Which announcements of manual fires an instance hands on: each fire once, every one announced since the last read,
 * none made before it started.
 */
class ManualFiresTest {

    private final List<Instant> handedOn = new CopyOnWriteArrayList<>();

    /** Never started: announcements are handed on without a request. */
    private final ManualFires fires = new ManualFires(
            LedgerParts.of(CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1)), new JobNodes("job"))
                    .manualFires(),
            handedOn::add,
            Instant::now,
            "job");

    @Test
    void aFireAnnouncedBeforeTheCachesFirstLoadIsLeftToTheAudits() {
        fires.announced(millis(1_000));
        fires.loaded();
        fires.announced(millis(1_000));

        assertThat(handedOn).isEmpty();
    }

    @Test
    void eachAnnouncedFireIsHandedOnOnceHoweverOftenItIsAnnounced() {
        fires.loaded();
        fires.announced(millis(1_000));
        fires.announced(millis(1_000));
        fires.announced(millis(2_000));
        fires.announced(millis(1_000));
        fires.announced("not a fire".getBytes(StandardCharsets.UTF_8));
        fires.announced(null);

        assertThat(handedOn).containsExactly(Instant.ofEpochMilli(1_000), Instant.ofEpochMilli(2_000));
    }

    @Test
    void announcementsTheCacheShowsOnceAreEachHandedOnInTheOrderAnnounced() {
        fires.loaded();
        fires.announced(millis(1_000));
        // Two writes coalesced into one read; the second fire was recorded by an instance whose clock lags.
        fires.announced(millis(1_000, 3_000, 2_000));
        fires.announced(millis(1_000, 3_000, 2_000));

        assertThat(handedOn)
                .containsExactly(Instant.ofEpochMilli(1_000), Instant.ofEpochMilli(3_000), Instant.ofEpochMilli(2_000));
    }

    @Test
    void theFiresListedAtTheCachesFirstLoadAreLeftToTheAuditsAndTheOnesAfterThemHandedOn() {
        fires.announced(millis(1_000, 2_000));
        fires.loaded();
        fires.announced(millis(1_000, 2_000, 3_000, 4_000));

        assertThat(handedOn).containsExactly(Instant.ofEpochMilli(3_000), Instant.ofEpochMilli(4_000));
    }

    private static byte[] millis(long... epochMillis) {
        AnnouncedFires announced = new AnnouncedFires(List.of());
        for (long fire : epochMillis) {
            announced = announced.with(Instant.ofEpochMilli(fire));
        }
        return announced.encode();
    }
}
