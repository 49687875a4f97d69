package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.budget.BudgetFigures;
import io.shardingjob.core.internal.registry.LeavingMark;
import io.shardingjob.core.internal.scheduling.audit.LedgerAudit;
import io.shardingjob.core.internal.scheduling.fire.CallingThread;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one job does on one instance, behind the public {@code JobCoordinator}, with an explicit
 * {@code start()/close()} lifecycle ({@code LATENT -> STARTED -> STOPPING -> CLOSED}).
 *
 * <p>Who runs an item of a fire is decided by the ledger alone: an item whose claim another run holds is not run here,
 * and what was left undone is found by the {@link LedgerAudit} of the item's current owner.
 *
 * <p>This class keeps the lifecycle; the handle reaches the rest through it. Connection state is handled by the job's
 * {@link ConnectionGuard} and only there. The parts {@link JobWiring} builds never call back into this class.
 */
public final class JobRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRuntime.class);
    private final JobSettings settings;
    private final Lifecycle lifecycle;
    private final JobParts parts;
    private final JobState state;
    private final FireRunner fires;
    private final JobOperations operations;
    private final LedgerQueries ledgerQueries;
    private final BudgetFigures budget;

    JobRuntime(
            JobSettings settings,
            Lifecycle lifecycle,
            JobParts parts,
            JobState state,
            FireRunner fires,
            JobOperations operations,
            LedgerQueries ledgerQueries,
            BudgetFigures budget) {
        this.settings = settings;
        this.lifecycle = lifecycle;
        this.parts = parts;
        this.state = state;
        this.fires = fires;
        this.operations = operations;
        this.ledgerQueries = ledgerQueries;
        this.budget = budget;
    }

    /** Nothing talks to ZooKeeper before {@link #start()}. */
    public static JobRuntime of(JobSettings settings) {
        return new JobWiring(settings).runtime();
    }

    public void start() {
        JobConfiguration local = settings.configuration();
        refuseWhatCannotRun(local);
        if (!lifecycle.start()) {
            throw new IllegalStateException("Job '" + local.name() + "' was already started");
        }
        try {
            parts.start(settings.timings().startTimeout(), settings.instance().clock());
            log.info("Job {} started on instance {}", local.name(), state.instanceId());
        } catch (RuntimeException ex) {
            close();
            throw ex;
        } catch (Exception ex) {
            close();
            throw new RegistryUnavailableException("Job '" + local.name() + "' could not start", ex);
        }
    }

    /** Refuses, before anything is written, settings under which the job could not run as its contract says. */
    private void refuseWhatCannotRun(JobConfiguration local) {
        ShardingStrategies strategies = settings.instance().strategies();
        if (strategies.find(local.strategy()).isEmpty()) {
            throw new JobConfigurationException(
                    local.name(),
                    "strategy",
                    "unknown sharding strategy '" + local.strategy() + "'; known strategies: " + strategies.names());
        }
        FireRunner.JobCode code = settings.code();
        if (code.job() != null && CallingThread.runsTasksOnTheCallingThread(code.itemExecutor())) {
            throw new IllegalArgumentException("Job '" + local.name() + "': the itemExecutor given to the builder"
                    + " (job(code, itemExecutor)) runs tasks on the calling thread, as Runnable::run does. Make-ups,"
                    + " take-overs and manual fires are handed to it from the job's one hand-off thread, so they would"
                    + " all run there, one after another, and hold up every later hand-off of the job. Give it an"
                    + " executor with threads of its own, such as Executors.newFixedThreadPool(n)");
        }
        budget.refuseAtStart(local);
        if (settings.instance().client().compressionEnabled()) {
            throw new IllegalArgumentException("Job '" + local.name() + "': the Curator client given to the builder"
                    + " compresses every node it writes and decompresses every node it reads"
                    + " (CuratorFrameworkFactory.Builder.enableCompression()). The fire ledger writes and reads its"
                    + " nodes raw, in multi-operations Curator does not compress, so Curator's caches and latches"
                    + " could not read them: manual fires would wait for the audits, and jobs that follow jobs would"
                    + " never run. Build the client without enableCompression(); a compression provider alone is"
                    + " fine, as it compresses only the writes that ask for it");
        }
    }

    /**
     * What the job costs ZooKeeper now, against its limits: its configuration in force, its items (under dynamic
     * sharding, the assignment's), and the fires its ledger holds as the latest audit listed them or as its schedule
     * makes them due within the retention, whichever is more. Sends no request.
     */
    public CoordinationBudget budget() {
        JobConfiguration configuration = state.configuration();
        int items = configuration.dynamicSharding()
                ? state.assignment().shardingTotalCount()
                : configuration.shardingTotalCount();
        return budget.assess(configuration, items, ledgerQueries.listedFires(), ledgerQueries.writeOperations());
    }

    /**
     * A close called while another thread closes the job returns only once that close is done: whoever closes the
     * client after it must not end the session under runs the first close still waits for.
     */
    @Override
    public void close() {
        if (lifecycle.closeUnstarted()) {
            try {
                parts.close();
            } finally {
                lifecycle.closeDone();
            }
            return;
        }
        if (!lifecycle.stop()) {
            lifecycle.awaitClosed();
            return;
        }
        try {
            parts.stopRunning();
            lifecycle.stopped();
            if (parts.close()) {
                parts.gracefulClose().withdrawLeaving();
            }
            log.info("Job {} closed on instance {}", state.jobName(), state.instanceId());
        } finally {
            lifecycle.closeDone();
        }
    }

    public boolean isStarted() {
        return lifecycle.isStarted();
    }

    public JobState state() {
        return state;
    }

    public FireRunner fires() {
        return fires;
    }

    public JobOperations operations() {
        return operations;
    }

    /** The mark by which this instance, registered, takes no items: while not ready, and while closing. */
    public LeavingMark leavingMark() {
        return parts.registry().leavingMark();
    }

    public LedgerQueries ledgerQueries() {
        return ledgerQueries;
    }
}
