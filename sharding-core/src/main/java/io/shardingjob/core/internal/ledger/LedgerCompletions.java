package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes each fire once across the cluster, from the ledger: records it in the jobs that follow this one, and calls
 * the {@link FireCompletionListener}. A fire is complete when it is settled (every item's claim ended). Whoever sees
 * that first writes {@code completing} into the fire node's note at the version it read (a compare-and-set: one
 * instance wins), in the same request as the followers' fires ({@link ChainRecords}), calls the listener, then writes
 * {@code completed}. A winner that dies in between leaves a note naming its dead session, which the leader's pass takes
 * over the same way: the followers' fires are recorded exactly once (a repeated record changes nothing), the listener
 * is called at least once, twice only if the caller dies between the call and its second write.
 *
 * <p>A job with neither a listener nor followers completes nothing: completing a fire costs reads and writes.
 */
public final class LedgerCompletions {

    private static final Logger log = LoggerFactory.getLogger(LedgerCompletions.class);
    private static final String COMPLETED = "completed";
    private static final String COMPLETING = "completing";
    private final ChainRecords chains;
    private final String jobName;
    private final String instanceId;
    private final @Nullable FireCompletionListener listener;
    private final Supplier<List<Follower>> followers;

    /**
     * @param listener called once per completed fire, or null for none
     * @param followers the jobs following this one now, as the job's cache has them
     */
    public LedgerCompletions(
            ChainRecords chains,
            String jobName,
            String instanceId,
            @Nullable FireCompletionListener listener,
            Supplier<List<Follower>> followers) {
        this.chains = chains;
        this.jobName = jobName;
        this.instanceId = instanceId;
        this.listener = listener;
        this.followers = followers;
    }

    /** The jobs following this one item by item, as the job's cache has them now. */
    public List<Follower> itemWiseFollowers() {
        return followers.get().stream().filter(Follower::itemWise).toList();
    }

    /** Whether anything waits for this job's fires to complete: a listener, or a job following this one. */
    public boolean isActive() {
        return listener != null || !followers.get().isEmpty();
    }

    /** Whether a fire node's note says its completion (the listener call) is done, so that the fire may be retired. */
    static boolean isCompletedNote(String note) {
        return note.startsWith(COMPLETED);
    }

    /**
     * Completes the fire if it is settled and nobody live is completing it, without waiting for ZooKeeper on a thread:
     * the listener is called on the given executor once this instance won the note.
     *
     * @param liveSessions the live sessions, or {@code null} when not known: a note of another session is then left alone
     * @param listenerExecutor where the listener runs: never ZooKeeper's event thread, which user code must not hold
     */
    public CompletableFuture<Void> completeIfSettled(
            FireView fire, long sessionId, @Nullable Set<Long> liveSessions, Executor listenerExecutor) {
        return completeIfSettled(fire, Integer.MAX_VALUE, sessionId, liveSessions, listenerExecutor);
    }

    /**
     * {@link #completeIfSettled(FireView, long, Set, Executor)}, with only the items below {@code dueCount} to wait for
     * ({@link FireView#isSettled(int)}).
     */
    public CompletableFuture<Void> completeIfSettled(
            FireView fire, int dueCount, long sessionId, @Nullable Set<Long> liveSessions, Executor listenerExecutor) {
        if (!fire.isSettled(dueCount) || isCompletedNote(fire.note()) || fire.noteVersion() < 0) {
            return CompletableFuture.completedFuture(null);
        }
        if (fire.note().startsWith(COMPLETING)) {
            long owner = Long.parseUnsignedLong(
                    fire.note().substring(fire.note().indexOf(' ') + 1).trim(), 16);
            if (liveSessions == null || liveSessions.contains(owner)) {
                return CompletableFuture.completedFuture(null);
            }
        }
        return chains.writeCompletionAsync(
                        fire, dueCount, COMPLETING + " " + Long.toHexString(sessionId), followers.get())
                .thenComposeAsync(
                        won -> {
                            if (!won) {
                                return CompletableFuture.completedFuture(null);
                            }
                            FireCompletionListener listening = listener;
                            if (listening != null) {
                                try {
                                    listening.fireCompleted(
                                            new FireCompletion(jobName, fire.fireTime(), fire.total(), outcomes(fire)));
                                } catch (RuntimeException ex) {
                                    log.warn("Job {}: the fire completion listener failed", jobName, ex);
                                }
                            }
                            return chains.writeNoteAsync(
                                            fire.fireTime(),
                                            COMPLETED + " " + instanceId,
                                            fire.origin(),
                                            fire.noteVersion() + 1)
                                    .thenAccept(written -> {});
                        },
                        listenerExecutor);
    }

    private static Map<Integer, FireCompletion.ItemEnd> outcomes(FireView fire) {
        Map<Integer, FireCompletion.ItemEnd> items = new TreeMap<>();
        fire.claims()
                .forEach((item, claim) -> items.put(
                        item,
                        new FireCompletion.ItemEnd(
                                claim.instanceId(),
                                switch (claim.state()) {
                                    case DONE -> FireCompletion.Outcome.SUCCESS;
                                    case FAILED -> FireCompletion.Outcome.FAILED;
                                    default -> FireCompletion.Outcome.SKIPPED;
                                })));
        return items;
    }
}
