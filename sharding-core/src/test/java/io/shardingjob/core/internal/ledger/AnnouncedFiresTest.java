package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The announcement node's list of fires: what it reads from a node's data, what it keeps, and what a reader that sees
 * only some of its writes finds announced since its last read.
 */
class AnnouncedFiresTest {

    @Test
    void readsTheDataOfANodeWrittenBeforeTheListAsAListOfOne() {
        assertThat(AnnouncedFires.decode("1732391460123".getBytes(StandardCharsets.UTF_8))
                        .fires())
                .containsExactly(Instant.ofEpochMilli(1732391460123L));
    }

    @Test
    void readsNoFireFromNoDataAndSkipsEntriesThatNameNone() {
        assertThat(AnnouncedFires.decode(null).fires()).isEmpty();
        assertThat(AnnouncedFires.decode(new byte[0]).fires()).isEmpty();
        assertThat(AnnouncedFires.decode("12,not a fire,34".getBytes(StandardCharsets.UTF_8))
                        .fires())
                .containsExactly(Instant.ofEpochMilli(12), Instant.ofEpochMilli(34));
    }

    @Test
    void keepsTheFiresInTheOrderAnnouncedAndDropsTheOldestBeyondWhatItKeeps() {
        AnnouncedFires announced = new AnnouncedFires(List.of());
        for (int fire = AnnouncedFires.KEPT + 5; fire > 0; fire--) {
            announced = announced.with(Instant.ofEpochMilli(fire));
        }

        assertThat(announced.fires()).hasSize(AnnouncedFires.KEPT);
        assertThat(announced.fires().get(0)).isEqualTo(Instant.ofEpochMilli(AnnouncedFires.KEPT));
        assertThat(announced.newest()).isEqualTo(Instant.ofEpochMilli(1));
        assertThat(AnnouncedFires.decode(announced.encode())).isEqualTo(announced);
    }

    @Test
    void namesEveryFireAfterOneNoLongerListedAndNoneAfterTheNewest() {
        AnnouncedFires announced = new AnnouncedFires(List.of(Instant.ofEpochMilli(5), Instant.ofEpochMilli(7)));

        assertThat(announced.after(null)).containsExactly(Instant.ofEpochMilli(5), Instant.ofEpochMilli(7));
        assertThat(announced.after(Instant.ofEpochMilli(3)))
                .containsExactly(Instant.ofEpochMilli(5), Instant.ofEpochMilli(7));
        assertThat(announced.after(Instant.ofEpochMilli(5))).containsExactly(Instant.ofEpochMilli(7));
        assertThat(announced.after(Instant.ofEpochMilli(7))).isEmpty();
    }

    /**
     * Writers announce fires in any time order (clocks lag); a reader sees the node after some of the writes only, as a
     * cache that coalesces changes does. As long as fewer than {@link AnnouncedFires#KEPT} writes come between two of
     * its reads, what it finds announced since each read is every fire, once, in the order announced.
     */
    @Property(tries = 500)
    void aReaderThatSeesSomeWritesFindsEveryFireOnceInTheOrderAnnounced(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 31) int mostBetweenReads) {
        Random random = new Random(seed);
        AnnouncedFires node = new AnnouncedFires(List.of());
        List<Instant> written = new ArrayList<>();
        List<Instant> found = new ArrayList<>();
        Instant seen = null;
        int sinceRead = 0;
        for (int write = 0; write < 200; write++) {
            Instant fire = Instant.ofEpochMilli(write * 10L + random.nextInt(50));
            if (written.contains(fire)) {
                continue;
            }
            node = node.with(fire);
            written.add(fire);
            sinceRead++;
            if (sinceRead == mostBetweenReads || random.nextInt(3) == 0) {
                AnnouncedFires read = AnnouncedFires.decode(node.encode());
                found.addAll(read.after(seen));
                seen = read.newest();
                sinceRead = 0;
            }
        }
        found.addAll(node.after(seen));

        assertThat(found).containsExactlyElementsOf(written);
    }

    /** However many writes a reader misses, it never finds a fire twice and always finds the last ones kept. */
    @Property(tries = 300)
    void aReaderThatMissesManyWritesNeverFindsAFireTwice(@ForAll long seed) {
        Random random = new Random(seed);
        AnnouncedFires node = new AnnouncedFires(List.of());
        Set<Instant> found = new LinkedHashSet<>();
        Instant seen = null;
        for (int write = 0; write < 300; write++) {
            node = node.with(Instant.ofEpochMilli(write));
            if (random.nextInt(AnnouncedFires.KEPT * 2) == 0) {
                for (Instant fire : node.after(seen)) {
                    assertThat(found.add(fire)).as("found twice: %s", fire).isTrue();
                }
                seen = node.newest();
            }
        }
        for (Instant fire : node.after(seen)) {
            assertThat(found.add(fire)).as("found twice: %s", fire).isTrue();
        }
        assertThat(found).containsAll(node.fires());
    }
}
