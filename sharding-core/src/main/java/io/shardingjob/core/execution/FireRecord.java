package io.shardingjob.core.execution;

import java.nio.charset.StandardCharsets;
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
 * @param recent this instance's last few fires with their epochs, newest last, so that the leader can tell which
 *     fires happened under which epoch even if it looks a few fires late
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

    private static final int RECENT = 8;

    public FireRecord {
        items = List.copyOf(items);
        coveredUntil = coveredUntil == null ? fireTime : coveredUntil;
        recent = List.copyOf(recent);
    }

    /** The record of a fire an instance starts, following its previous record (if any). */
    public static FireRecord next(
            FireRecord previous, long sessionId, Instant fireTime, long epoch, int total, List<Integer> items) {
        List<Fire> recent = new ArrayList<>(previous == null ? List.of() : previous.recent());
        recent.add(new Fire(fireTime, epoch));
        if (recent.size() > RECENT) {
            recent = recent.subList(recent.size() - RECENT, recent.size());
        }
        return new FireRecord(sessionId, fireTime, epoch, total, items, 0, fireTime, recent);
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
