package io.shardingjob.core.execution;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 */
public record FireRecord(
        long sessionId,
        Instant fireTime,
        long epoch,
        int shardingTotalCount,
        List<Integer> items,
        long removedEpoch,
        Instant coveredUntil) {

    public FireRecord {
        items = List.copyOf(items);
        coveredUntil = coveredUntil == null ? fireTime : coveredUntil;
    }

    /** The record of a fire an instance starts. */
    public FireRecord(long sessionId, Instant fireTime, long epoch, int shardingTotalCount, List<Integer> items) {
        this(sessionId, fireTime, epoch, shardingTotalCount, items, 0, fireTime);
    }

    /** The same record, as kept by the leader while it makes up the dead instance's missed fires. */
    public FireRecord whileDead(long removedEpoch, Instant coveredUntil) {
        return new FireRecord(sessionId, fireTime, epoch, shardingTotalCount, items, removedEpoch, coveredUntil);
    }

    public byte[] encode() {
        return ("session=" + Long.toHexString(sessionId) + "\nfireTime=" + fireTime + "\nepoch=" + epoch
                        + "\nshardingTotalCount=" + shardingTotalCount + "\nitems="
                        + items.stream().map(String::valueOf).collect(Collectors.joining(",")) + "\nremovedEpoch="
                        + removedEpoch + "\ncoveredUntil=" + coveredUntil + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException when the data is not a fire record */
    public static FireRecord decode(byte[] data) {
        Map<String, String> fields = new HashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
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
                    fields.containsKey("coveredUntil") ? Instant.parse(fields.get("coveredUntil")) : null);
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("Not a fire record: " + fields, ex);
        }
    }
}
