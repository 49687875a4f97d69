package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.ItemWiseRecords;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.registry.Follower;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of an item's end once its write was answered: a recorded end goes to this instance's memory (for the
 * leader's keeper) and sets off, on the serial executor, the item of each item-wise follower's fire at the same time,
 * recorded at once (the items of one fire that end together in one request per follower), and the check whether the end
 * completed its fire. Each check reads the whole fire, so the items of one fire that end together cost one check, and a
 * job without a completion listener or followers checks nothing. An end that could not be written is owed, and written
 * later in one request, before this session's audit acts on its claim.
 */
public final class ItemEnds {

    private static final Logger log = LoggerFactory.getLogger(ItemEnds.class);
    private final JobView view;
    private final ClaimWrites claims;
    private final RunMemory memory;

    /** Completes nothing unless a listener was given or a job follows this one: completing a fire costs reads. */
    private final @Nullable LedgerCompletions completions;

    private final LedgerReads reads;
    private final ItemWiseRecords itemWiseRecords;
    private final SerialExecutor serial;

    /** Fires whose completion check is waiting on the serial executor. */
    private final Set<Instant> waiting = ConcurrentHashMap.newKeySet();

    /** Ended items waiting on the serial executor to be recorded in the item-wise followers, by fire. */
    private final Map<Instant, List<Claim>> itemWise = new ConcurrentHashMap<>();

    public ItemEnds(
            JobView view,
            ClaimWrites claims,
            RunMemory memory,
            @Nullable LedgerCompletions completions,
            LedgerReads reads,
            ItemWiseRecords itemWiseRecords,
            SerialExecutor serial) {
        this.view = view;
        this.claims = claims;
        this.memory = memory;
        this.completions = completions;
        this.reads = reads;
        this.itemWiseRecords = itemWiseRecords;
        this.serial = serial;
    }

    /**
     * How the final write of a run (or of a claim given up) came out: recorded, lost to another instance (then
     * {@code lost} says so), or not answered (then its end is owed, and written later).
     */
    void answered(
            Claim ended,
            Optional<Claim> stored,
            @Nullable Throwable failure,
            Runnable lost,
            boolean lastOfItsFireHere) {
        if (failure != null) {
            log.warn(
                    "Job {}: could not record item {} of the fire at {} as {}; will retry: {}",
                    view.jobName(),
                    ended.item(),
                    ended.fireTime(),
                    ended.state(),
                    failure.toString());
            memory.unwritten(ended);
        } else if (stored.isEmpty()) {
            lost.run();
        } else if (ended.state() != ClaimState.RELEASED && ended.state() != ClaimState.HANDED_ON) {
            itemEnded(stored.get(), lastOfItsFireHere);
        }
    }

    /**
     * Writes the ends of items that could not be recorded when they ended, in one request.
     *
     * @return whether nothing is owed any more: until then, this session's audit must not act on these claims
     */
    public CompletableFuture<Boolean> writeOwed() {
        List<Claim> owed = memory.takeUnwritten();
        if (owed.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        // Directly, not through the group commit: the audit that asks for this runs on the coordination loop, which
        // may be where the group commit drains.
        return claims.commitAsync(owed, Instant.EPOCH, List.of()).handle((committed, failure) -> {
            if (failure != null) {
                owed.forEach(memory::unwritten);
                log.debug("Job {}: {} ends still owed: {}", view.jobName(), owed.size(), failure.toString());
                return false;
            }
            ClaimWrites.Written written = committed.written();
            written.lost()
                    .forEach(lost -> log.warn(
                            "Job {}: item {} of the fire at {} was taken over before its end could be recorded",
                            view.jobName(),
                            lost.item(),
                            lost.fireTime()));
            written.written().stream()
                    .filter(claim -> claim.state() != ClaimState.RELEASED)
                    .forEach(claim -> itemEnded(claim, true));
            return true;
        });
    }

    /**
     * An item of the fire ended and its claim says so ({@code stored}, as the ledger holds it now). Its item-wise followers' items are recorded at once; the fire may
     * be complete only once this instance's last item of it ended, so only that end reads the fire: the instance whose
     * end is recorded last sees every other end, and the leader's pass completes what a lost check left.
     */
    private void itemEnded(Claim stored, boolean lastOfItsFireHere) {
        memory.recordedEnds().recorded(stored);
        Instant fireTime = stored.fireTime();
        LedgerCompletions listening = completions;
        if (listening != null) {
            recordItemWise(stored, listening.itemWiseFollowers());
        }
        if (listening != null && lastOfItsFireHere && listening.isActive() && waiting.add(fireTime)) {
            serial.submit(() -> {
                waiting.remove(fireTime);
                return reads.readAsync(List.of(fireTime))
                        .thenCompose(views ->
                                listening.completeIfSettled(views.get(0), view.sessionId(), null, serial.pool()))
                        .exceptionally(failure -> {
                            log.debug(
                                    "Job {}: completion check of {} failed: {}",
                                    view.jobName(),
                                    fireTime,
                                    Answers.cause(failure).toString());
                            return null;
                        });
            });
        }
    }

    private void recordItemWise(Claim stored, List<Follower> followers) {
        if (followers.isEmpty()) {
            return;
        }
        boolean first = itemWise.compute(stored.fireTime(), (fireTime, ended) -> {
                            List<Claim> more = ended == null ? new ArrayList<>() : new ArrayList<>(ended);
                            more.add(stored);
                            return more;
                        })
                        .size()
                == 1;
        if (!first) {
            return;
        }
        serial.submit(() -> {
            List<Claim> ended = itemWise.remove(stored.fireTime());
            if (ended == null) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<?>[] writes = followers.stream()
                    .map(follower -> itemWiseRecords
                            .recordEndsAsync(stored.fireTime(), ended, follower)
                            .exceptionally(failure -> {
                                // The completer of the fire records every item not recorded yet.
                                log.debug(
                                        "Job {}: items {} of {} not recorded in {} yet: {}",
                                        view.jobName(),
                                        ended.stream().map(Claim::item).toList(),
                                        stored.fireTime(),
                                        follower.job(),
                                        Answers.cause(failure).toString());
                                return null;
                            }))
                    .toArray(CompletableFuture[]::new);
            return CompletableFuture.allOf(writes);
        });
    }
}
