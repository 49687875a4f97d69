package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.ledger.LedgerKeeper;
import io.shardingjob.core.internal.ledger.LedgerOverview;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's duties for one job, on the job's serial executor: raise the reshard flag when the assignment no longer
 * matches, reshard while the flag is up, and keep the ledger. On an instance that is not the leader, or cannot start
 * items, a pass does nothing.
 */
public final class Reconciler {

    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    private final JobView view;
    private final LeaderElection election;
    private final ShardingService sharding;
    private final LedgerKeeper keeper;
    private final LedgerReads reads;
    private final SerialExecutor serial;

    private final AtomicBoolean reconcileQueued = new AtomicBoolean();

    public Reconciler(
            JobView view,
            LeaderElection election,
            ShardingService sharding,
            LedgerKeeper keeper,
            LedgerReads reads,
            SerialExecutor serial) {
        this.view = view;
        this.election = election;
        this.sharding = sharding;
        this.keeper = keeper;
        this.reads = reads;
        this.serial = serial;
    }

    /** On the leader, a reaction to a registry event: one pass soon, however many events arrive meanwhile. */
    void reconcileSoon() {
        if (election.isLeader()) {
            serial.submitOnce(reconcileQueued, () -> reconcile(false));
        }
    }

    /** A periodic pass that kept the ledger and left it behind is followed at once, not one interval later. */
    public boolean keeperIsBehind() {
        return keeper.isBehind();
    }

    /**
     * A periodic pass.
     *
     * @return the ledger as the keeper left it, when this instance leads and kept it; never failed
     */
    public CompletableFuture<Optional<LedgerOverview>> reconcile() {
        return reconcile(true);
    }

    /**
     * @param periodic whether this is a periodic pass (look for the flag in ZooKeeper even when the cache shows none,
     *     and keep the ledger) rather than a reaction to a registry event
     */
    private CompletableFuture<Optional<LedgerOverview>> reconcile(boolean periodic) {
        if (!view.isAvailable() || !election.isLeader()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        CompletableFuture<Optional<LedgerOverview>> kept;
        try {
            boolean flagUp = sharding.isReshardPending();
            Optional<String> inconsistency = flagUp ? Optional.empty() : sharding.inconsistency();
            boolean pending = flagUp || inconsistency.isPresent();
            CompletableFuture<?> raised = inconsistency
                    .<CompletableFuture<?>>map(sharding::requestReshardAsync)
                    .orElseGet(() -> CompletableFuture.completedFuture(null));
            CompletableFuture<?> resharded;
            if (pending) {
                resharded = raised.thenCompose(flag -> sharding.reshardIfNecessaryAsync());
            } else if (periodic) {
                // The cache shows no flag: a look in ZooKeeper, in the client's merged reads, says whether one is up.
                resharded = reads.reshardFlaggedAsync()
                        .thenCompose(up -> up
                                ? sharding.reshardIfNecessaryAsync()
                                : CompletableFuture.completedFuture(Optional.empty()));
            } else {
                resharded = raised;
            }
            kept = periodic
                    ? resharded
                            .thenComposeAsync(written -> keeper.pass(view.now(), view.sessionId()), serial.pool())
                            .thenApply(Optional::of)
                    : resharded.thenApply(written -> Optional.empty());
        } catch (RuntimeException ex) {
            kept = CompletableFuture.failedFuture(ex);
        }
        return kept.exceptionally(failure -> {
            log.warn(
                    "Job {}: reconcile failed, will retry: {}",
                    view.jobName(),
                    Answers.cause(failure).toString());
            return Optional.empty();
        });
    }
}
