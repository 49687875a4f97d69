package io.shardingjob.core.internal.ledger;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The data of a job's announcement node ({@code /{job}/manual-fire}): the fires announced last, oldest first, in the
 * order announced ({@code <fireMillis>,<fireMillis>,…}). A cache may show a node's data once for several writes
 * (coalesced, or changed while it reconnected): the list lets an instance find every fire announced since the one it
 * saw last. The order is the writers', not the fire times': an instance whose clock lags may announce a fire earlier
 * than one announced before it. Writers append at the version they read, so that two announcements at once cannot drop
 * one another; a node written before the list (one fire's milliseconds) reads as a list of one.
 */
public record AnnouncedFires(List<Instant> fires) {

    /** Announcements kept: far more than an instance's cache can miss between two of its reads of the node. */
    static final int KEPT = 32;

    private static final AnnouncedFires NONE = new AnnouncedFires(List.of());

    public AnnouncedFires {
        fires = List.copyOf(fires);
    }

    /** The list a node's data holds; none for no data, and without entries that name no fire. */
    public static AnnouncedFires decode(byte @Nullable [] data) {
        if (data == null || data.length == 0) {
            return NONE;
        }
        List<Instant> fires = new ArrayList<>();
        for (String entry : new String(data, StandardCharsets.UTF_8).split(",")) {
            try {
                fires.add(Instant.ofEpochMilli(Long.parseLong(entry.trim())));
            } catch (NumberFormatException notAFire) {
                // Written by something else than this library: no fire to hand on.
            }
        }
        return new AnnouncedFires(fires);
    }

    public byte[] encode() {
        return fires.stream()
                .map(fire -> String.valueOf(fire.toEpochMilli()))
                .collect(Collectors.joining(","))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** This list with a fire announced after the others; the oldest drop out beyond {@link #KEPT}. */
    public AnnouncedFires with(Instant fire) {
        List<Instant> next = new ArrayList<>(fires);
        next.add(fire);
        return new AnnouncedFires(next.subList(Math.max(0, next.size() - KEPT), next.size()));
    }

    /**
     * The fires announced after {@code seen}, oldest first: every fire when {@code seen} is null or no longer listed
     * (more than {@link #KEPT} announcements since), and none when it is the newest.
     */
    public List<Instant> after(@Nullable Instant seen) {
        int at = seen == null ? -1 : fires.lastIndexOf(seen);
        return fires.subList(at + 1, fires.size());
    }

    /** The fire announced last, or null when none is. */
    public @Nullable Instant newest() {
        return fires.isEmpty() ? null : fires.get(fires.size() - 1);
    }
}
