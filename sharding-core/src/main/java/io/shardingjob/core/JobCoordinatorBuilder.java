package io.shardingjob.core;

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
import io.shardingjob.core.internal.scheduling.JobRuntime;
import io.shardingjob.core.internal.scheduling.JobSettings;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a coordinator, from {@link JobCoordinator#builder}; only the client and the configuration are required.
 * The default and meaning of a setting with a {@link JobSetting} of its name ({@link JobSetting.Scope#COORDINATOR})
 * are defined there.
 */
public final class JobCoordinatorBuilder {

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

    JobCoordinatorBuilder(CuratorFramework client, JobConfiguration configuration) {
        this.client = Objects.requireNonNull(client, "client");
        this.configuration = Objects.requireNonNull(configuration, "configuration");
    }

    /** This instance's id; defaults to {@code host@-@pid}. */
    public JobCoordinatorBuilder instanceId(String instanceId) {
        this.instanceId = instanceId;
        return this;
    }

    public JobCoordinatorBuilder strategies(ShardingStrategies strategies) {
        this.strategies = strategies;
        return this;
    }

    /** A pool shared by many jobs for coordination work; by default each coordinator has one thread of its own. */
    public JobCoordinatorBuilder scheduler(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
        return this;
    }

    public JobCoordinatorBuilder startTimeout(Duration startTimeout) {
        this.startTimeout = startTimeout;
        return this;
    }

    public JobCoordinatorBuilder reconcileInterval(Duration reconcileInterval) {
        this.reconcileInterval = reconcileInterval;
        return this;
    }

    public JobCoordinatorBuilder shardingWaitTimeout(Duration shardingWaitTimeout) {
        this.shardingWaitTimeout = shardingWaitTimeout;
        return this;
    }

    /**
     * The job's code and its items' executor, for the builder's fires and for runs outside any fire: make-ups,
     * take-overs, manual fires. The executor must run tasks on threads of its own: {@link JobCoordinator#start()}
     * refuses a direct one ({@code Runnable::run}) with an {@link IllegalArgumentException}, since every make-up,
     * take-over and manual fire of the job would then run on the one thread that hands them on. It may be bounded: a run it
     * refuses (a full queue, {@code AbortPolicy}) is handed on, and the item's owner runs it later; one it runs on
     * the thread handing it over when full ({@code CallerRunsPolicy}) runs on that thread, the fire's caller or the
     * job's own hand-off thread, never on ZooKeeper's or a coordination thread.
     */
    public JobCoordinatorBuilder job(ItemExecutor job, Executor itemExecutor) {
        this.job = job;
        this.itemExecutor = itemExecutor;
        return this;
    }

    /** Told about every item run on this instance. */
    public JobCoordinatorBuilder listener(ExecutionListener listener) {
        this.listener = listener;
        return this;
    }

    /** Told before and after this instance runs its items of each fire. */
    public JobCoordinatorBuilder fireListener(FireListener fireListener) {
        this.fireListener = fireListener;
        return this;
    }

    /**
     * Hands this instance's items of each manual fire to the program's fire path; by default {@link
     * JobCoordinator#fireAsync}.
     */
    public JobCoordinatorBuilder manualFireHandler(ManualFireHandler manualFireHandler) {
        this.manualFireHandler = Objects.requireNonNull(manualFireHandler, "manualFireHandler");
        return this;
    }

    /**
     * Told once per fire across the cluster when all its items ended. Every instance of the job should set one: the
     * call happens on whichever instance ends the fire's last item.
     */
    public JobCoordinatorBuilder completionListener(FireCompletionListener completionListener) {
        this.completionListener = completionListener;
        return this;
    }

    /**
     * Told when items of a fire did not run at their fire time on this instance: missed (nobody claimed them in
     * time) or overran (they still ran from an earlier fire).
     */
    public JobCoordinatorBuilder misfireListener(MisfireListener misfireListener) {
        this.misfireListener = Objects.requireNonNull(misfireListener, "misfireListener");
        return this;
    }

    public JobCoordinatorBuilder shutdownGracePeriod(Duration shutdownGracePeriod) {
        this.shutdownGracePeriod = shutdownGracePeriod;
        return this;
    }

    /** So that running items stop before another instance can take them over. */
    public JobCoordinatorBuilder interruptOnConnectionLoss(boolean interruptOnConnectionLoss) {
        this.interruptOnConnectionLoss = interruptOnConnectionLoss;
        return this;
    }

    /**
     * The time of manual fires, of fires started without one, and of claims; {@link Clock#systemUTC()} by default.
     */
    public JobCoordinatorBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Under the misfire policies {@code once} and {@code all}: {@code skip} makes up nothing. */
    public JobCoordinatorBuilder catchUpHorizon(Duration catchUpHorizon) {
        this.catchUpHorizon = Objects.requireNonNull(catchUpHorizon, "catchUpHorizon");
        return this;
    }

    public JobCoordinatorBuilder ledgerRetention(Duration ledgerRetention) {
        this.ledgerRetention = Objects.requireNonNull(ledgerRetention, "ledgerRetention");
        return this;
    }

    /**
     * The job's fire times, so that fires that came due while nobody could claim them (an outage, every instance
     * down) are made up as the misfire policy says; without one, only the fires told of count as due.
     */
    public JobCoordinatorBuilder schedule(FireSchedule schedule) {
        this.schedule = Objects.requireNonNull(schedule, "schedule");
        return this;
    }

    public JobCoordinator build() {
        return new JobCoordinator(JobRuntime.of(settings()));
    }

    /** The settings as they are now, with the defaults of those not set; later changes do not affect them. */
    JobSettings settings() {
        return new JobSettings(
                configuration,
                new JobSettings.Instance(client, instanceId, strategies, scheduler, clock),
                new JobSettings.Timings(startTimeout, reconcileInterval, shardingWaitTimeout, shutdownGracePeriod),
                new JobSettings.FireHistory(schedule, catchUpHorizon, ledgerRetention),
                new FireRunner.JobCode(job, itemExecutor, manualFireHandler),
                new JobSettings.Listeners(listener, fireListener, completionListener, misfireListener),
                interruptOnConnectionLoss);
    }
}
