package io.shardingjob.boot.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters of the sharded jobs, all tagged with {@code job}:
 *
 * <ul>
 *   <li>{@code sharding.job.execution}: timer of item executions, also tagged {@code outcome} (SUCCESS, FAILED,
 *       TIMED_OUT, FENCED_OUT);
 *   <li>{@code sharding.job.items.owned}: gauge of the items this instance owns;
 *   <li>{@code sharding.job.reshards}: counter of the reshards this instance has seen (epoch increases);
 *   <li>{@code sharding.job.failovers}: counter of items this instance ran in place of a crashed or departed owner
 *       (orphans taken over);
 *   <li>{@code sharding.job.misfires.made.up}: counter of item runs this instance made up for fires they missed;
 *   <li>{@code sharding.job.items.running}: gauge of the items running on this instance now;
 *   <li>{@code sharding.job.fire.lag}: timer from each fire's scheduled time to the hand-off of its items here;
 *   <li>{@code sharding.job.last.success.age}: gauge of the seconds since the scheduled time of the latest fire whose
 *       items all succeeded here (their last run, retries included); absent (NaN) until one has;
 *   <li>{@code sharding.job.ledger.nodes}: gauge of the nodes the job's fire ledger holds, each fire retained with a
 *       claim per item: the fires as this instance's latest audit listed them, or as the schedule makes them due
 *       within the retention, whichever is more ({@link io.shardingjob.core.config.CoordinationBudget});
 *   <li>{@code sharding.job.ledger.bytes}: gauge of what those nodes take on every ZooKeeper server, by estimate
 *       (250 bytes a claim);
 *   <li>{@code sharding.job.ledger.writes}: counter of the write operations this instance's ledger of the job asked
 *       for (claims, starts, ends, fire nodes, deletions), each once however many went in one request; its rate is
 *       the job's writes per second from here;
 *   <li>{@code sharding.job.budget.findings}: gauge of the limits of ZooKeeper's the job is within 80 % of, from
 *       {@code JobCoordinator.budget()}: 0 when it is near none.
 * </ul>
 *
 * And, not tagged with a job, {@code sharding.zookeeper.requests}: counter of the requests this instance's ZooKeeper
 * client sent (Curator's tracer: every operation, a multi-operation once, pings not), whose rate is the instance's
 * requests per second. None of these sends a request of its own: they read what the ledger's audits listed and count
 * what was sent.
 *
 * Jobs start after the registry is bound, so meters are registered for each job as it starts.
 */
public class ShardingMetrics implements MeterBinder, ShardedJobListener, ShardedJobFireListener {

    private final List<JobCoordinator> jobs = new CopyOnWriteArrayList<>();

    /** Registered with each job, so that a fire looks its timer up in a map, not in the meter registry. */
    private final Map<String, Timer> fireLag = new ConcurrentHashMap<>();

    /** The scheduled time of the latest fire of each job whose items all succeeded here. */
    private final Map<String, Instant> lastSuccess = new ConcurrentHashMap<>();

    private final Clock clock;

    /** The client the jobs share, once they run: its requests are counted from the first job's start. */
    private final Supplier<@Nullable CuratorFramework> client;

    private volatile @Nullable ZooKeeperRequests requests;

    private volatile @Nullable MeterRegistry registry;

    public ShardingMetrics() {
        this(Clock.systemUTC());
    }

    /** @param clock what the fire lag and the age of the last successful fire are measured against */
    public ShardingMetrics(Clock clock) {
        this(clock, () -> null);
    }

    /**
     * @param clock what the fire lag and the age of the last successful fire are measured against
     * @param client the ZooKeeper client the jobs run on, asked for when the first job starts (null: no request count)
     */
    public ShardingMetrics(Clock clock, Supplier<@Nullable CuratorFramework> client) {
        this.clock = clock;
        this.client = client;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        jobs.forEach(job -> register(registry, job));
        registerRequests(registry);
    }

    @Override
    public void jobStarted(JobCoordinator job) {
        jobs.add(job);
        countRequests();
        MeterRegistry bound = registry;
        if (bound != null) {
            register(bound, job);
            registerRequests(bound);
        }
    }

    /** The requests of the jobs' client, counted once the jobs run on it (the client is made for them). */
    private synchronized void countRequests() {
        if (requests == null) {
            CuratorFramework shared = client.get();
            if (shared != null) {
                requests = ZooKeeperRequests.attachTo(shared);
            }
        }
    }

    private void registerRequests(MeterRegistry registry) {
        ZooKeeperRequests counted = requests;
        if (counted != null) {
            FunctionCounter.builder("sharding.zookeeper.requests", counted, ZooKeeperRequests::count)
                    .description("Requests this instance's ZooKeeper client sent, a multi-operation once, pings not")
                    .register(registry);
        }
    }

    @Override
    public void executed(ExecutionRecord execution) {
        MeterRegistry bound = registry;
        if (bound != null) {
            if (execution.source() == ExecutionSource.FAILOVER) {
                failovers(bound, execution.job()).increment();
            } else if (execution.source() == ExecutionSource.MISFIRE) {
                madeUp(bound, execution.job()).increment();
            }
            Timer.builder("sharding.job.execution")
                    .description("Item executions of sharded jobs on this instance")
                    .tag("job", execution.job())
                    .tag("outcome", execution.outcome().name())
                    .register(bound)
                    .record(execution.duration());
        }
    }

    @Override
    public void beforeFire(String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {
        Timer lag = fireLag.get(jobName);
        if (lag != null && source == ExecutionSource.NORMAL) {
            lag.record(Duration.between(fireTime, clock.instant()));
        }
    }

    @Override
    public void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {
        if (report.succeeded()) {
            lastSuccess.merge(jobName, fireTime, (known, now) -> now.isAfter(known) ? now : known);
        }
    }

    private void register(MeterRegistry registry, JobCoordinator job) {
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
        madeUp(registry, job.jobName());
        fireLag.put(
                job.jobName(),
                Timer.builder("sharding.job.fire.lag")
                        .description("From a fire's scheduled time to the hand-off of its items on this instance")
                        .tag("job", job.jobName())
                        .register(registry));
        Gauge.builder(
                        "sharding.job.items.running",
                        job,
                        running -> running.ledger().runningItems().size())
                .description("Items of the job running on this instance now")
                .tag("job", job.jobName())
                .register(registry);
        Gauge.builder("sharding.job.last.success.age", job.jobName(), this::secondsSinceLastSuccess)
                .description("Seconds since the scheduled time of the job's latest fire whose items all succeeded here")
                .baseUnit("seconds")
                .strongReference(true)
                .tag("job", job.jobName())
                .register(registry);
        registerLedger(registry, job);
    }

    private static void registerLedger(MeterRegistry registry, JobCoordinator job) {
        Gauge.builder("sharding.job.ledger.nodes", job, owner -> owner.budget().ledgerNodes())
                .description("Nodes the job's fire ledger holds: fires retained, each with a claim per item")
                .tag("job", job.jobName())
                .register(registry);
        Gauge.builder("sharding.job.ledger.bytes", job, owner -> owner.budget().ledgerBytes())
                .description("What the job's fire ledger takes on every ZooKeeper server, by estimate")
                .baseUnit("bytes")
                .tag("job", job.jobName())
                .register(registry);
        FunctionCounter.builder(
                        "sharding.job.ledger.writes",
                        job,
                        owner -> owner.budget().figures().ledgerWriteOperations())
                .description("Write operations this instance's ledger of the job asked ZooKeeper for")
                .tag("job", job.jobName())
                .register(registry);
        Gauge.builder(
                        "sharding.job.budget.findings",
                        job,
                        owner -> owner.budget().findings().size())
                .description("Limits of ZooKeeper's the job is within 80 % of or past")
                .tag("job", job.jobName())
                .register(registry);
    }

    private double secondsSinceLastSuccess(String job) {
        Instant last = lastSuccess.get(job);
        return last == null
                ? Double.NaN
                : Duration.between(last, clock.instant()).toMillis() / 1_000.0;
    }

    private static Counter madeUp(MeterRegistry registry, String job) {
        return Counter.builder("sharding.job.misfires.made.up")
                .description("Item runs of the job this instance made up for fires they missed")
                .tag("job", job)
                .register(registry);
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
