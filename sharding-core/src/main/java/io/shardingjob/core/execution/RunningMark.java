package io.shardingjob.core.execution;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * The content of {@code /{job}/running/{item}}: who runs (or is about to run) the item, under which session, epoch and
 * fire. The node is persistent so that a crash leaves it behind: a mark whose session is no longer an instance's is
 * an orphan, the exact set of items that had not completed.
 *
 * @param instanceId the owner
 * @param sessionId the owner's ZooKeeper session when it marked the item
 * @param epoch the assignment epoch the item runs under
 * @param fireTime the fire the item belongs to
 * @param shardingTotalCount the total of that fire
 * @param source why it runs
 * @param retry which retry of the item in its fire runs (0: the first run), so that failover carries it on
 */
public record RunningMark(
        String instanceId,
        long sessionId,
        long epoch,
        Instant fireTime,
        int shardingTotalCount,
        ExecutionSource source,
        int retry) {

    /** The mark of a first run. */
    public RunningMark(
            String instanceId,
            long sessionId,
            long epoch,
            Instant fireTime,
            int shardingTotalCount,
            ExecutionSource source) {
        this(instanceId, sessionId, epoch, fireTime, shardingTotalCount, source, 0);
    }

    public byte[] encode() {
        return ("instance=" + instanceId + "\nsession=" + Long.toHexString(sessionId) + "\nepoch=" + epoch
                        + "\nfireTime=" + fireTime + "\nshardingTotalCount=" + shardingTotalCount + "\nsource=" + source
                        + "\nretry=" + retry + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException when the data is not a mark */
    public static RunningMark decode(byte[] data) {
        Map<String, String> fields = KeyValueText.parse(data);
        try {
            return new RunningMark(
                    fields.get("instance"),
                    Long.parseUnsignedLong(fields.get("session"), 16),
                    Long.parseLong(fields.get("epoch")),
                    Instant.parse(fields.get("fireTime")),
                    Integer.parseInt(fields.getOrDefault("shardingTotalCount", "0")),
                    ExecutionSource.valueOf(fields.getOrDefault("source", "NORMAL")),
                    Integer.parseInt(fields.getOrDefault("retry", "0")));
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("Not a running mark: " + fields, ex);
        }
    }
}
