package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The claim of one item of one fire, as stored in its ledger node, with the node's version (what a compare-and-set
 * write must hold) and the fencing token of its current owner.
 *
 * @param sessionId the ZooKeeper session that owns it: the claim is live exactly as long as that session is
 * @param attempt how many owners the claim has had: 1 for the first, one more for each take-over
 * @param epoch the assignment epoch the claimer planned with (informative: the claim, not the epoch, fences)
 * @param retry the retry the item is at: a take-over continues the count
 * @param started when the current owner took it
 * @param version the node's data version when read or written
 * @param fencingToken the {@code mzxid} of the write that gave the claim to its current owner
 * @param startAhead whether its start was written ahead of its run (only with {@code failover} on, see {@link
 *     StartBatch#writesAhead}): its run may never have begun, and began, if it did, where repeating it was allowed,
 *     which is how a take-over judges it ({@link TakeOverRule#runsOrphan}); false when absent from the data, as in
 *     older claims
 * @param checkpoint the last checkpoint a run of the claim saved, which a run that continues it (a take-over, a
 *     retry, a re-run) resumes from; null when none was
 */
public record Claim(
        int item,
        Instant fireTime,
        String instanceId,
        long sessionId,
        int attempt,
        ClaimState state,
        ExecutionSource source,
        long epoch,
        int total,
        int retry,
        Instant started,
        @Nullable Instant ended,
        int version,
        long fencingToken,
        boolean startAhead,
        @Nullable String checkpoint) {

    /** A new claim, before it is written: reserved, its run not started (see {@link #startedAt}). */
    public static Claim first(
            int item,
            Instant fireTime,
            String instanceId,
            long sessionId,
            ExecutionSource source,
            long epoch,
            int total,
            Instant now) {
        return new Claim(
                item,
                fireTime,
                instanceId,
                sessionId,
                1,
                ClaimState.RESERVED,
                source,
                epoch,
                total,
                0,
                now,
                null,
                -1,
                0,
                false,
                null);
    }

    /** This claim given to a new owner, as a take-over writes it: reserved by the new owner, which starts it later. */
    public Claim takenOverBy(String newInstance, long newSession, ExecutionSource newSource, Instant now) {
        return new Claim(
                item,
                fireTime,
                newInstance,
                newSession,
                attempt + 1,
                ClaimState.RESERVED,
                newSource,
                epoch,
                total,
                retry,
                now,
                null,
                version,
                0,
                false,
                checkpoint);
    }

    /**
     * This claim as its owner writes it just before the run starts: {@code RUNNING}, started now. The versioned write
     * of it is what lets the run start: it fails once the claim was taken over, and only the ensemble's leader answers
     * a write, so its answer proves the session live (a follower cut off from the leader still answers pings).
     */
    public Claim startedAt(Instant now) {
        return copy(ClaimState.RUNNING, retry, now, null, version, fencingToken, false, checkpoint);
    }

    /**
     * This claim with its start written ahead of its run, which has not left its queue (or whose fire is still to come):
     * {@code RUNNING} as {@link #startedAt} writes it, and marked so, since its run may never begin.
     */
    public Claim startedAheadAt(Instant now) {
        return copy(ClaimState.RUNNING, retry, now, null, version, fencingToken, true, checkpoint);
    }

    /** This claim in another state, written by its owner. */
    public Claim with(ClaimState newState, @Nullable Instant newEnded) {
        return copy(newState, retry, started, newEnded, version, fencingToken, startAhead, checkpoint);
    }

    /** This claim at the retry its owner starts now. */
    public Claim atRetry(int newRetry) {
        return copy(state, newRetry, started, ended, version, fencingToken, startAhead, checkpoint);
    }

    /** This claim with the checkpoint its run saved now. */
    public Claim withCheckpoint(String newCheckpoint) {
        return copy(state, retry, started, ended, version, fencingToken, startAhead, newCheckpoint);
    }

    /** This claim as the server holds it after a write that returned {@code stat}. */
    public Claim written(Stat stat, boolean owningWrite) {
        return copy(
                state,
                retry,
                started,
                ended,
                stat.getVersion(),
                owningWrite ? stat.getMzxid() : fencingToken,
                startAhead,
                checkpoint);
    }

    /** This claim under the same owner, in the same plan, with what its owner's writes change. */
    private Claim copy(
            ClaimState newState,
            int newRetry,
            Instant newStarted,
            @Nullable Instant newEnded,
            int newVersion,
            long newToken,
            boolean newStartAhead,
            @Nullable String newCheckpoint) {
        return new Claim(
                item,
                fireTime,
                instanceId,
                sessionId,
                attempt,
                newState,
                source,
                epoch,
                total,
                newRetry,
                newStarted,
                newEnded,
                newVersion,
                newToken,
                newStartAhead,
                newCheckpoint);
    }

    /**
     * The node's data, one {@code key=value} line per field. The fencing token is stored by every write after the
     * owning one, so that a reader learns it; the owning write cannot know its own {@code mzxid}, so a node without a
     * token was last written by its owning write and its {@code mzxid} is the token.
     */
    public byte[] encode() {
        StringBuilder text = new StringBuilder(160)
                .append("instance=")
                .append(instanceId)
                .append("\nsession=")
                .append(Long.toHexString(sessionId))
                .append("\nstate=")
                .append(state)
                .append("\nepoch=")
                .append(epoch)
                .append("\ntotal=")
                .append(total)
                .append("\nstarted=")
                .append(started.toEpochMilli())
                .append('\n');
        // Fields at the value decode assumes when they are absent are left out: a thousand items' ends and
        // the claims of their next fire then fit in one request.
        if (attempt != 1) {
            text.append("attempt=").append(attempt).append('\n');
        }
        if (source != ExecutionSource.NORMAL) {
            text.append("source=").append(source).append('\n');
        }
        if (retry != 0) {
            text.append("retry=").append(retry).append('\n');
        }
        if (ended != null) {
            text.append("ended=").append(ended.toEpochMilli()).append('\n');
        }
        if (fencingToken != 0) {
            text.append("token=").append(fencingToken).append('\n');
        }
        if (startAhead) {
            text.append("startAhead=true\n");
        }
        if (checkpoint != null) {
            // Base64, so that a line break in it cannot end its line.
            text.append("checkpoint=")
                    .append(Base64.getEncoder().encodeToString(checkpoint.getBytes(StandardCharsets.UTF_8)))
                    .append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static Claim decode(int item, Instant fireTime, byte[] data, Stat stat) {
        Map<String, String> fields = new HashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        String ended = fields.get("ended");
        String token = fields.get("token");
        String checkpoint = fields.get("checkpoint");
        return new Claim(
                item,
                fireTime,
                fields.getOrDefault("instance", ""),
                Long.parseUnsignedLong(fields.getOrDefault("session", "0"), 16),
                Integer.parseInt(fields.getOrDefault("attempt", "1")),
                ClaimState.valueOf(fields.getOrDefault("state", ClaimState.RUNNING.name())),
                ExecutionSource.valueOf(fields.getOrDefault("source", ExecutionSource.NORMAL.name())),
                Long.parseLong(fields.getOrDefault("epoch", "0")),
                Integer.parseInt(fields.getOrDefault("total", "0")),
                Integer.parseInt(fields.getOrDefault("retry", "0")),
                Instant.ofEpochMilli(Long.parseLong(fields.getOrDefault("started", "0"))),
                ended == null ? null : Instant.ofEpochMilli(Long.parseLong(ended)),
                stat.getVersion(),
                token == null ? stat.getMzxid() : Long.parseLong(token),
                Boolean.parseBoolean(fields.get("startAhead")),
                checkpoint == null ? null : new String(Base64.getDecoder().decode(checkpoint), StandardCharsets.UTF_8));
    }
}
