package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ItemWiseRecords;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.registry.Follower;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an item's recorded end sets off, on the serial executor: the item of each item-wise follower's fire at the same
 * time, recorded at once (the items of one fire that end together in one request per follower), and the check whether
 * the end completed its fire. Each check reads the whole fire, so the items of one fire that end together cost one
 * check, and a job without a completion listener or followers checks nothing.
 */
public final class CompletionChecks {

    private static final Logger log = LoggerFactory.getLogger(CompletionChecks.class);

    /** Completes nothing unless a listener was given or a job follows this one: completing a fire costs reads. */
    private final @Nullable LedgerCompletions completions;

    private final LedgerReads reads;
    private final ItemWiseRecords itemWiseRecords;
    private final SerialExecutor serial;

    /** The current session: the completing note names it, so that a completer that died is taken over. */
    private final LongSupplier sessionId;

    private final String jobName;

    /** Fires whose completion check is waiting on the serial executor. */
    private final Set<Instant> waiting = ConcurrentHashMap.newKeySet();

    /** Ended items waiting on the serial executor to be recorded in the item-wise followers, by fire. */
    private final Map<Instant, List<Claim>> itemWise = new ConcurrentHashMap<>();

    public CompletionChecks(
            @Nullable LedgerCompletions completions,
            LedgerReads reads,
            ItemWiseRecords itemWiseRecords,
            SerialExecutor serial,
            LongSupplier sessionId,
            String jobName) {
        this.completions = completions;
        this.reads = reads;
        this.itemWiseRecords = itemWiseRecords;
        this.serial = serial;
        this.sessionId = sessionId;
        this.jobName = jobName;
    }

    /**
     * An item of the fire ended and its claim says so. Its item-wise followers' items are recorded at once; the fire may
     * be complete only once this instance's last item of it ended, so only that end reads the fire: the instance whose
     * end is recorded last sees every other end, and the leader's pass completes what a lost check left.
     */
    void itemEnded(Claim stored, boolean lastOfItsFireHere) {
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
                                listening.completeIfSettled(views.get(0), sessionId.getAsLong(), null, serial.pool()))
                        .exceptionally(failure -> {
                            log.debug(
                                    "Job {}: completion check of {} failed: {}",
                                    jobName,
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
                                        jobName,
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
