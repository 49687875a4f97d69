package io.shardingjob.core.execution;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The content of {@code /{job}/fires/{instanceId}}: the last fire an instance started, with the items it owned then.
 * When an instance dies, the fires it missed between its last record and the survivors' latest are known, and its
 * items run once to make them up instead of silently skipping them while nobody noticed the death.
 *
 * @param sessionId the session the instance fired under
 * @param fireTime the fire's scheduled time
 * @param epoch the assignment epoch of the fire
 * @param shardingTotalCount the total of the fire
 * @param items the items the instance owned at the fire
 * @param removedEpoch once the instance is known dead: the first epoch without it (0 while it is still assigned)
 * @param coveredUntil once the instance is known dead: the latest fire its items were made up for
 * @param recent this instance's recent fires with their epochs, newest last: the fires a dead instance missed are
 *     read from its survivors' lists, so they reach back further than a dead session can go unnoticed
 */
public record FireRecord(
        long sessionId,
        Instant fireTime,
        long epoch,
        int shardingTotalCount,
        List<Integer> items,
        long removedEpoch,
        Instant coveredUntil,
        List<Fire> recent) {

    private static final int MIN_RECENT = 8;

    private static final int MAX_RECENT = 512;

    public FireRecord {
        items = List.copyOf(items);
        coveredUntil = coveredUntil == null ? fireTime : coveredUntil;
        recent = List.copyOf(recent);
    }

    /**
     * The record of a fire an instance starts, following its previous record (if any).
     *
     * @param keep how far back the recent fires reach: longer than a dead instance can go unnoticed (at least the last
     *     eight fires are kept, and at most 512)
     */
    public static FireRecord next(
            FireRecord previous,
            long sessionId,
            Instant fireTime,
            long epoch,
            int total,
            List<Integer> items,
            Duration keep) {
        List<Fire> recent = new ArrayList<>(previous == null ? List.of() : previous.recent());
        recent.add(new Fire(fireTime, epoch));
        Instant horizon = fireTime.minus(keep);
        int drop = 0;
        while (recent.size() - drop > MAX_RECENT
                || (recent.size() - drop > MIN_RECENT
                        && recent.get(drop).fireTime().isBefore(horizon))) {
            drop++;
        }
        recent = recent.subList(drop, recent.size());
        // A make-up of an older fire is recorded too, but must not move back what the instance has already fired.
        Instant latest = previous != null && previous.fireTime().isAfter(fireTime) ? previous.fireTime() : fireTime;
        return new FireRecord(sessionId, latest, epoch, total, items, 0, latest, recent);
    }

    /**
     * The same record, as kept by the leader while it makes up the dead instance's missed fires: the items it owned
     * when its death was noticed, the epoch that removed it, and the latest fire made up.
     */
    public FireRecord whileDead(List<Integer> items, long removedEpoch, Instant coveredUntil) {
        return new FireRecord(
                sessionId, fireTime, epoch, shardingTotalCount, items, removedEpoch, coveredUntil, recent);
    }

    /** One fire: when, and under which epoch. */
    public record Fire(Instant fireTime, long epoch) {}

    public byte[] encode() {
        return ("session=" + Long.toHexString(sessionId) + "\nfireTime=" + fireTime + "\nepoch=" + epoch
                        + "\nshardingTotalCount=" + shardingTotalCount + "\nitems="
                        + items.stream().map(String::valueOf).collect(Collectors.joining(",")) + "\nremovedEpoch="
                        + removedEpoch + "\ncoveredUntil=" + coveredUntil + "\nrecent="
                        + recent.stream()
                                .map(fire -> fire.fireTime() + "@" + fire.epoch())
                                .collect(Collectors.joining(","))
                        + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static List<Fire> parseRecent(String text) {
        List<Fire> fires = new ArrayList<>();
        for (String fire : text.split(",")) {
            int at = fire.lastIndexOf('@');
            if (at > 0) {
                fires.add(new Fire(Instant.parse(fire.substring(0, at)), Long.parseLong(fire.substring(at + 1))));
            }
        }
        return fires;
    }

    /** @throws IllegalArgumentException when the data is not a fire record */
    public static FireRecord decode(byte[] data) {
        Map<String, String> fields = KeyValueText.parse(data);
        try {
            List<Integer> items = new ArrayList<>();
            for (String item : fields.getOrDefault("items", "").split(",")) {
                if (!item.isBlank()) {
                    items.add(Integer.parseInt(item.trim()));
                }
            }
            return new FireRecord(
                    Long.parseUnsignedLong(fields.get("session"), 16),
                    Instant.parse(fields.get("fireTime")),
                    Long.parseLong(fields.get("epoch")),
                    Integer.parseInt(fields.get("shardingTotalCount")),
                    items,
                    Long.parseLong(fields.getOrDefault("removedEpoch", "0")),
                    fields.containsKey("coveredUntil") ? Instant.parse(fields.get("coveredUntil")) : null,
                    parseRecent(fields.getOrDefault("recent", "")));
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("Not a fire record: " + fields, ex);
        }
    }
}
