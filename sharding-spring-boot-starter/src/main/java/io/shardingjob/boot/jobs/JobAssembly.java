package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.JobCoordinatorBuilder;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How a job of the application is put together before it starts: its coordinator, built with the settings every job
 * shares (timings, strategies, pools, the crons' fire schedule), the job's code wrapped by the decorators, and the
 * listeners declared for it. {@link RunningJobs} decides whether a job may start and keeps the ones that run.
 */
final class JobAssembly {

    private final RunningJobs.Timings timings;

    private final ShardingStrategies strategies;

    private final ShardedJobExecutors executors;

    private final JobListeners jobListeners;

    private final Supplier<List<ItemExecutorDecorator>> decorators;

    /** The crons of every job, read once for the triggers and the ledger's schedules. */
    private final JobCrons crons = new JobCrons();

    private final CronFireSchedule fireSchedule;

    JobAssembly(
            RunningJobs.Timings timings,
            ShardingStrategies strategies,
            ShardedJobExecutors executors,
            JobListeners jobListeners,
            Supplier<List<ItemExecutorDecorator>> decorators) {
        this.timings = timings;
        this.strategies = strategies;
        this.executors = executors;
        this.jobListeners = jobListeners;
        this.decorators = decorators;
        this.fireSchedule = new CronFireSchedule(crons, executors.clock());
    }

    /**
     * The job with its coordinator built, not started yet.
     *
     * @param executed told of every item execution of the job
     */
    ScheduledShardedJob assemble(
            @Nullable ShardedJobMethod method,
            ItemExecutor code,
            String describedAs,
            JobConfiguration configuration,
            RegistryCenter registry,
            String instanceId,
            Consumer<ExecutionRecord> executed) {
        JobCoordinatorBuilder builder = JobCoordinator.builder(registry.client(), configuration)
                .instanceId(instanceId)
                .strategies(strategies)
                .scheduler(executors.coordination())
                // The timer's clock: the time a fire is stamped with is the time its trigger read.
                .clock(executors.clock())
                .startTimeout(timings.startTimeout())
                .reconcileInterval(timings.reconcileInterval())
                .shardingWaitTimeout(timings.shardingWaitTimeout())
                .shutdownGracePeriod(timings.shutdownGracePeriod())
                .schedule(fireSchedule)
                // The core runs items outside fires too (failover), so it gets the job and the pool itself.
                .job(invocation(configuration.name(), code), executors.items())
                .listener(result -> executed.accept(ExecutionRecord.of(result)))
                .fireListener(jobListeners.fireListenerFor(configuration.name()));
        FireCompletionListener completion = jobListeners.completionListenerFor(configuration.name());
        if (completion != null) {
            builder.completionListener(completion);
        }
        MisfireListener misfires = jobListeners.misfireListenerFor(configuration.name());
        if (misfires != null) {
            builder.misfireListener(misfires);
        }
        return new ScheduledShardedJob(method, describedAs, builder, executors, crons);
    }

    /** The job's code, wrapped by the decorators in order: the first one's wrapper is the outermost. */
    private ItemExecutor invocation(String job, ItemExecutor code) {
        List<ItemExecutorDecorator> inOrder = decorators.get();
        ItemExecutor invocation = code;
        for (int i = inOrder.size() - 1; i >= 0; i--) {
            invocation = inOrder.get(i).decorate(job, invocation);
        }
        return invocation;
    }

    /** The jobs' time: the executors' clock. */
    Clock clock() {
        return executors.clock();
    }

    /** The fire times of the jobs' crons, as their triggers read them. */
    CronFireSchedule fireSchedule() {
        return fireSchedule;
    }
}
