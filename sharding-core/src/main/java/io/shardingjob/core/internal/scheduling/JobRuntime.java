package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.scheduling.audit.LedgerAudit;
import io.shardingjob.core.internal.scheduling.fire.CallingThread;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one job does on one instance, behind the public {@code JobCoordinator}: registration, election,
 * resharding and fires through the fire ledger, with an explicit {@code start()/close()} lifecycle
 * ({@code LATENT -> STARTED -> STOPPING -> CLOSED}).
 *
 * <p>Who runs an item of a fire is decided by the ledger alone: a fire claims this instance's items (one create per
 * item, in one multi-operation), and an item whose claim another run holds is not run here. What was left undone is
 * found by the {@link LedgerAudit} of the item's current owner, which takes over claims whose session is gone and makes
 * up fires nobody claimed, as the misfire policy says.
 *
 * <p>This class keeps the lifecycle; the handle reaches the rest through it: the job as it stands ({@link JobState}),
 * its fires ({@link JobFires}), what an operator changes ({@link JobOperations}) and reads of the ledger ({@link
 * LedgerQueries}). Connection state is handled by the job's {@link ConnectionGuard} and only there. {@link JobWiring}
 * builds the parts, which never call back into this class; {@link JobParts} starts and closes them in order.
 */
public final class JobRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRuntime.class);
    private final JobSettings settings;
    private final Lifecycle lifecycle;
    private final JobParts parts;
    private final JobState state;
    private final JobFires fires;
    private final JobOperations operations;
    private final LedgerQueries ledgerQueries;

    JobRuntime(
            JobSettings settings,
            Lifecycle lifecycle,
            JobParts parts,
            JobState state,
            JobFires fires,
            JobOperations operations,
            LedgerQueries ledgerQueries) {
        this.settings = settings;
        this.lifecycle = lifecycle;
        this.parts = parts;
        this.state = state;
        this.fires = fires;
        this.operations = operations;
        this.ledgerQueries = ledgerQueries;
    }

    /** The runtime of one job, its parts built and connected; nothing talks to ZooKeeper before {@link #start()}. */
    public static JobRuntime of(JobSettings settings) {
        return JobWiring.wire(settings);
    }

    /**
     * Stores or reads the shared configuration, registers this instance, joins the election and asks for a reshard.
     *
     * @throws JobConfigurationException when the job's strategy is unknown
     * @throws RegistryUnavailableException when ZooKeeper does not answer within the start timeout
     */
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
        JobSettings.JobCode code = settings.code();
        if (code.job() != null && CallingThread.runsTasksOnTheCallingThread(code.itemExecutor())) {
            throw new IllegalArgumentException("Job '" + local.name() + "': the itemExecutor given to the builder"
                    + " (job(code, itemExecutor)) runs tasks on the calling thread, as Runnable::run does. Make-ups,"
                    + " take-overs and manual fires are handed to it from the job's one hand-off thread, so they would"
                    + " all run there, one after another, and hold up every later hand-off of the job. Give it an"
                    + " executor with threads of its own, such as Executors.newFixedThreadPool(n)");
        }
        if (client().compressionEnabled()) {
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
     * Leaves cleanly: stops starting items and announces it (so the next assignment leaves it out and its items of
     * later fires run elsewhere), lets running items finish within the shutdown grace period, interrupts the ones still
     * running then and waits until they returned (each one's claim is released to its next owner as it returns), and
     * then deletes this instance's registration, and after it the leaving mark. Work that completed is recorded in the
     * ledger before the registration goes, so it is never run again; a run that is still alive keeps the registration,
     * so nobody else starts it. Without a connection by then, the close waits for it as long as the session lasts
     * (other jobs of the client keep it): a registration left to a session that lives on would stay for good.
     *
     * <p>A close called while another thread closes the job returns only once that close is done: whoever closes the
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

    /** Started and not stopping: the job asks for work. */
    public boolean isStarted() {
        return lifecycle.isStarted();
    }

    /** The job as it stands now on this instance. */
    public JobState state() {
        return state;
    }

    /** Where the job's fires, manual fires and re-runs enter. */
    public JobFires fires() {
        return fires;
    }

    /** What an operator changes in the job's registry. */
    public JobOperations operations() {
        return operations;
    }

    /** The read-only views of the ledger for operators. */
    public LedgerQueries ledgerQueries() {
        return ledgerQueries;
    }

    /** The client the job coordinates through. */
    public CuratorFramework client() {
        return settings.instance().client();
    }
}
