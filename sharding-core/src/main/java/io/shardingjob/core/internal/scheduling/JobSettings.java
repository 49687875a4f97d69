package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link JobRuntime} is built from: the public {@code JobCoordinator.Builder} fills it in, with the defaults
 * {@code JobSetting} defines for the settings it was not given.
 *
 * @param scheduler a pool shared by many jobs for coordination work, or null to give the job a thread of its own
 * @param job the job's code for make-ups and take-overs, or null when the caller passes it to each fire
 * @param completionListener told once per fire across the cluster when all its items ended, or null
 * @param manualFireHandler starts this instance's items of a manual fire, or null to start them with the job and the
 *     item executor
 * @param schedule the job's fire times, for the fires that came due while nobody could claim them
 * @param misfireListener told of the fires of this instance's items that were missed or overran
 */
public record JobSettings(
        CuratorFramework client,
        JobConfiguration configuration,
        String instanceId,
        ShardingStrategies strategies,
        @Nullable ScheduledExecutorService scheduler,
        Duration startTimeout,
        Duration reconcileInterval,
        Duration shardingWaitTimeout,
        @Nullable ItemExecutor job,
        Executor itemExecutor,
        ExecutionListener listener,
        FireListener fireListener,
        @Nullable FireCompletionListener completionListener,
        @Nullable ManualFireHandler manualFireHandler,
        Duration shutdownGracePeriod,
        boolean interruptOnConnectionLoss,
        Duration catchUpHorizon,
        Duration ledgerRetention,
        Clock clock,
        FireSchedule schedule,
        MisfireListener misfireListener) {}
