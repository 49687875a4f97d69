package io.shardingjob.boot.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ExecutionSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters of the sharded jobs, all tagged with {@code job}:
 *
 * <ul>
 *   <li>{@code sharding.job.execution}: timer of item executions, also tagged {@code outcome} (SUCCESS, FAILED,
 *       TIMED_OUT);
 *   <li>{@code sharding.job.items.owned}: gauge of the items this instance owns;
 *   <li>{@code sharding.job.reshards}: counter of the reshards this instance has seen (epoch increases);
 *   <li>{@code sharding.job.failovers}: counter of items this instance ran in place of a crashed or departed owner.
 * </ul>
 *
 * Jobs start after the registry is bound, so meters are registered for each job as it starts.
 */
public class ShardingMetrics implements MeterBinder, ShardedJobListener {

    private final List<JobCoordinator> jobs = new CopyOnWriteArrayList<>();

    private volatile @Nullable MeterRegistry registry;

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        jobs.forEach(job -> register(registry, job));
    }

    @Override
    public void jobStarted(JobCoordinator job) {
        jobs.add(job);
        MeterRegistry bound = registry;
        if (bound != null) {
            register(bound, job);
        }
    }

    @Override
    public void executed(ExecutionRecord execution) {
        MeterRegistry bound = registry;
        if (bound != null) {
            if (execution.source() == ExecutionSource.FAILOVER) {
                failovers(bound, execution.job()).increment();
            }
            Timer.builder("sharding.job.execution")
                    .description("Item executions of sharded jobs on this instance")
                    .tag("job", execution.job())
                    .tag("outcome", execution.outcome().name())
                    .register(bound)
                    .record(execution.duration());
        }
    }

    private static void register(MeterRegistry registry, JobCoordinator job) {
        Gauge.builder(
                        "sharding.job.items.owned",
                        job,
                        owner -> owner.localItems().size())
                .description("Items of the job this instance owns")
                .tag("job", job.jobName())
                .register(registry);
        EpochCounter epochs = new EpochCounter(job);
        FunctionCounter.builder("sharding.job.reshards", epochs, EpochCounter::count)
                .description("Reshards of the job seen by this instance")
                .tag("job", job.jobName())
                .register(registry);
        failovers(registry, job.jobName());
    }

    private static Counter failovers(MeterRegistry registry, String job) {
        return Counter.builder("sharding.job.failovers")
                .description("Items of the job this instance ran in place of a crashed or departed owner")
                .tag("job", job)
                .register(registry);
    }

    /**
     * Counts epoch increases, each one reshard that moved items. Read when the meter is read, so reshards between two
     * reads are all counted; an epoch that goes down (the registry was wiped) restarts the count from there.
     */
    static final class EpochCounter {

        private final JobCoordinator job;

        private long last;

        private double total;

        EpochCounter(JobCoordinator job) {
            this.job = job;
            this.last = job.assignment().epoch();
        }

        synchronized double count() {
            long epoch = job.assignment().epoch();
            if (epoch > last) {
                total += epoch - last;
            }
            last = epoch;
            return total;
        }
    }
}
