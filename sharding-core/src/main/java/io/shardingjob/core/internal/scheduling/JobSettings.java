package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link JobRuntime} is built from: the public {@code JobCoordinatorBuilder} fills it in, with the defaults
 * {@code JobSetting} defines for the settings it was not given. Grouped by what each group is for, so that the wiring
 * hands a part the group it reads rather than all of them.
 *
 * @param interruptOnConnectionLoss whether running items are interrupted before their session may expire
 */
public record JobSettings(
        JobConfiguration configuration,
        Instance instance,
        Timings timings,
        FireHistory history,
        FireRunner.JobCode code,
        Listeners listeners,
        boolean interruptOnConnectionLoss) {

    /**
     * What this process lends the job: its client, its id, the strategies it knows, its coordination threads and clock.
     *
     * @param scheduler a pool shared by many jobs for coordination work, or null to give the job a thread of its own
     */
    public record Instance(
            CuratorFramework client,
            String instanceId,
            ShardingStrategies strategies,
            @Nullable ScheduledExecutorService scheduler,
            Clock clock) {}

    /** How long the job waits for ZooKeeper, a reshard and its running items, and how often its leader checks. */
    public record Timings(
            Duration startTimeout,
            Duration reconcileInterval,
            Duration shardingWaitTimeout,
            Duration shutdownGracePeriod) {}

    /**
     * Which fires were due, how far back missed ones are made up, and how long settled ones stay in the ledger.
     *
     * @param schedule the job's fire times, for the fires that came due while nobody could claim them
     */
    public record FireHistory(FireSchedule schedule, Duration catchUpHorizon, Duration ledgerRetention) {}

    /**
     * What the program is told of the job's runs and fires.
     *
     * @param completions told once per fire across the cluster when all its items ended, or null
     * @param misfires told of the fires of this instance's items that were missed or overran
     */
    public record Listeners(
            ExecutionListener items,
            FireListener fires,
            @Nullable FireCompletionListener completions,
            MisfireListener misfires) {}
}
