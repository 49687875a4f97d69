package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobSetting;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * The values the public {@code JobCoordinator.Builder} collects, with their defaults (defined in {@link JobSetting}),
 * until they become the {@link JobSettings} of a runtime. They are kept here rather than in the public builder so that
 * the builder is only its documented setters, and so that the settings can grow without the public class carrying
 * their plumbing. Public only because that builder is in another package; not API.
 */
public final class JobSettingsBuilder {

    private final CuratorFramework client;

    private final JobConfiguration configuration;

    private String instanceId = InstanceId.ofThisProcess();

    private ShardingStrategies strategies = ShardingStrategies.defaults();

    private @Nullable ScheduledExecutorService scheduler;

    private Duration startTimeout = JobSetting.Defaults.START_TIMEOUT;

    private Duration reconcileInterval = JobSetting.Defaults.RECONCILE_INTERVAL;

    private Duration shardingWaitTimeout = JobSetting.Defaults.SHARDING_WAIT_TIMEOUT;

    private @Nullable ItemExecutor job;

    private Executor itemExecutor = Runnable::run;

    private ExecutionListener listener = result -> {};

    private FireListener fireListener = new FireListener() {};

    private @Nullable FireCompletionListener completionListener;

    private @Nullable ManualFireHandler manualFireHandler;

    private Duration shutdownGracePeriod = JobSetting.Defaults.SHUTDOWN_GRACE_PERIOD;

    private boolean interruptOnConnectionLoss = JobSetting.Defaults.INTERRUPT_ON_CONNECTION_LOSS;

    private Duration catchUpHorizon = JobSetting.Defaults.CATCH_UP_HORIZON;

    private Duration ledgerRetention = JobSetting.Defaults.LEDGER_RETENTION;

    private Clock clock = Clock.systemUTC();

    private FireSchedule schedule = FireSchedule.NONE;

    private MisfireListener misfireListener = new MisfireListener() {};

    public JobSettingsBuilder(CuratorFramework client, JobConfiguration configuration) {
        this.client = client;
        this.configuration = configuration;
    }

    public void instanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    public void strategies(ShardingStrategies strategies) {
        this.strategies = strategies;
    }

    public void scheduler(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    public void startTimeout(Duration startTimeout) {
        this.startTimeout = startTimeout;
    }

    public void reconcileInterval(Duration reconcileInterval) {
        this.reconcileInterval = reconcileInterval;
    }

    public void shardingWaitTimeout(Duration shardingWaitTimeout) {
        this.shardingWaitTimeout = shardingWaitTimeout;
    }

    public void job(ItemExecutor job, Executor itemExecutor) {
        this.job = job;
        this.itemExecutor = itemExecutor;
    }

    public void listener(ExecutionListener listener) {
        this.listener = listener;
    }

    public void fireListener(FireListener fireListener) {
        this.fireListener = fireListener;
    }

    public void completionListener(FireCompletionListener completionListener) {
        this.completionListener = completionListener;
    }

    public void manualFireHandler(ManualFireHandler manualFireHandler) {
        this.manualFireHandler = manualFireHandler;
    }

    public void shutdownGracePeriod(Duration shutdownGracePeriod) {
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    public void interruptOnConnectionLoss(boolean interruptOnConnectionLoss) {
        this.interruptOnConnectionLoss = interruptOnConnectionLoss;
    }

    public void clock(Clock clock) {
        this.clock = clock;
    }

    public void catchUpHorizon(Duration catchUpHorizon) {
        this.catchUpHorizon = catchUpHorizon;
    }

    public void ledgerRetention(Duration ledgerRetention) {
        this.ledgerRetention = ledgerRetention;
    }

    public void schedule(FireSchedule schedule) {
        this.schedule = schedule;
    }

    public void misfireListener(MisfireListener misfireListener) {
        this.misfireListener = misfireListener;
    }

    /** The settings as they are now; later changes to this builder do not affect them. */
    public JobSettings build() {
        return new JobSettings(
                client,
                configuration,
                instanceId,
                strategies,
                scheduler,
                startTimeout,
                reconcileInterval,
                shardingWaitTimeout,
                job,
                itemExecutor,
                listener,
                fireListener,
                completionListener,
                manualFireHandler,
                shutdownGracePeriod,
                interruptOnConnectionLoss,
                catchUpHorizon,
                ledgerRetention,
                clock,
                schedule,
                misfireListener);
    }
}
