package io.shardingjob.boot.jobs;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The threads of every sharded job together: one scheduler, one coordination pool, one pool of fires, one pool of
 * items. Their sizes do not depend on the number of jobs (Elastic-Job spends a pool per job). They are deliberately
 * not {@code TaskScheduler} or {@code Executor} beans, so that they neither replace the application's own scheduler
 * for {@code @Scheduled} nor get shut down by the context before the jobs have finished.
 *
 * <ul>
 *   <li>the scheduler runs one {@link FireTimer} for every job's cron trigger: one task armed for the earliest next fire,
 *       which starts every fire due at that instant in one pass and hands them to the fire pool together;
 *   <li>coordination work (audits, ledger upkeep, reshards, claim writes) waits on ZooKeeper, so it has a scheduled
 *       pool of its own: a slow or unreachable ZooKeeper must not make cron triggers late;
 *   <li>a fire plans its items and hands them on (it may wait for the claims of items it could not claim ahead), so
 *       fires get their own bounded pool rather than blocking the scheduler; a fire does not wait for its items, nor
 *       hold its thread while it waits for a reshard in progress or an audit;
 *   <li>items run on a separate bounded pool, which also plans the fires that had to wait and completes each fire's
 *       report.
 * </ul>
 *
 * <p>With virtual threads the fires and items run on virtual threads, each pool's size then a limit of concurrent runs
 * rather than a number of platform threads.
 *
 * <p>The scheduler's {@link Clock} is the jobs' one time: the timer compares the crons' times with it, and the
 * coordinators stamp fires and claims with it ({@link #clock()}). The factories take the application's {@code Clock}
 * bean when it has one, so that a test that moves that clock moves the schedules ({@link FireTimer#clockMoved()}).
 */
public final class ShardedJobExecutors implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardedJobExecutors.class);

    /** Coordination threads of the factories that are not told a number. */
    private static final int DEFAULT_COORDINATION_THREADS = 2;

    private final ThreadPoolTaskScheduler scheduler;

    private final ScheduledExecutorService coordination;

    private final @Nullable ThreadPoolTaskScheduler ownCoordination;

    private final Executor fires;

    private final Executor items;

    private final FireTimer timer;

    /**
     * @param scheduler an initialized scheduler
     * @param fires plans each fire and hands its items on
     * @param items runs the items
     */
    public ShardedJobExecutors(ThreadPoolTaskScheduler scheduler, Executor fires, Executor items) {
        this(scheduler, null, fires, items);
    }

    /**
     * @param scheduler an initialized scheduler, for cron triggers
     * @param coordination an initialized scheduler for coordination work, closed with these executors; null to share
     *     {@code scheduler}, whose triggers then wait behind coordination work
     * @param fires plans each fire and hands its items on
     * @param items runs the items
     */
    public ShardedJobExecutors(
            ThreadPoolTaskScheduler scheduler,
            @Nullable ThreadPoolTaskScheduler coordination,
            Executor fires,
            Executor items) {
        this.scheduler = scheduler;
        this.ownCoordination = coordination;
        this.coordination =
                coordination != null ? coordination.getScheduledExecutor() : scheduler.getScheduledExecutor();
        this.fires = fires;
        this.items = items;
        this.timer = new FireTimer(
                scheduler, scheduler.getScheduledExecutor(), fires, parallelismOf(fires), scheduler.getClock());
    }

    /** How many fires the pool runs at once: its threads, or as many as are handed to it when it has no bound. */
    private static int parallelismOf(Executor fires) {
        if (fires instanceof ThreadPoolTaskExecutor pool) {
            return pool.getMaxPoolSize();
        }
        if (fires instanceof ThreadPoolExecutor pool) {
            return pool.getMaximumPoolSize();
        }
        if (fires instanceof BoundedVirtualExecutor bounded) {
            return bounded.limit();
        }
        return Integer.MAX_VALUE;
    }

    /** Platform threads: a scheduler of {@code schedulerThreads}, and fixed pools that queue what they cannot run. */
    public static ShardedJobExecutors platform(int schedulerThreads, int fireThreads, int itemThreads) {
        return platform(schedulerThreads, DEFAULT_COORDINATION_THREADS, fireThreads, itemThreads);
    }

    /** Platform threads, with {@code coordinationThreads} for coordination work, on the system clock. */
    public static ShardedJobExecutors platform(
            int schedulerThreads, int coordinationThreads, int fireThreads, int itemThreads) {
        return platform(schedulerThreads, coordinationThreads, fireThreads, itemThreads, Clock.systemUTC());
    }

    /** Platform threads, with {@code coordinationThreads} for coordination work, whose jobs tell time by {@code clock}. */
    public static ShardedJobExecutors platform(
            int schedulerThreads, int coordinationThreads, int fireThreads, int itemThreads, Clock clock) {
        return new ShardedJobExecutors(
                scheduler("sharding-scheduler-", schedulerThreads, clock),
                scheduler("sharding-coordination-", coordinationThreads, clock),
                pool("sharding-fire-", fireThreads),
                pool("sharding-item-", itemThreads));
    }

    /**
     * Virtual threads for fires and items: at most {@code fireConcurrency} fires and {@code itemConcurrency} items run
     * at once, each on a virtual thread of its own, and the others wait in a queue as they do in the platform pools
     * ({@link BoundedVirtualExecutor}). The scheduler stays a small platform pool: the coordinators need a
     * {@link ScheduledExecutorService}, which a virtual-thread {@code SimpleAsyncTaskScheduler} is not, and its tasks
     * never block. Java 21 or later only.
     */
    public static ShardedJobExecutors virtual(int schedulerThreads, int fireConcurrency, int itemConcurrency) {
        return virtual(schedulerThreads, DEFAULT_COORDINATION_THREADS, fireConcurrency, itemConcurrency);
    }

    /**
     * Virtual threads for fires and items, with {@code coordinationThreads} platform threads for coordination work, on
     * the system clock.
     */
    public static ShardedJobExecutors virtual(
            int schedulerThreads, int coordinationThreads, int fireConcurrency, int itemConcurrency) {
        return virtual(schedulerThreads, coordinationThreads, fireConcurrency, itemConcurrency, Clock.systemUTC());
    }

    /**
     * Virtual threads for fires and items, with {@code coordinationThreads} platform threads for coordination work,
     * whose jobs tell time by {@code clock}.
     */
    public static ShardedJobExecutors virtual(
            int schedulerThreads, int coordinationThreads, int fireConcurrency, int itemConcurrency, Clock clock) {
        return new ShardedJobExecutors(
                scheduler("sharding-scheduler-", schedulerThreads, clock),
                scheduler("sharding-coordination-", coordinationThreads, clock),
                new BoundedVirtualExecutor("sharding-fire-", fireConcurrency),
                new BoundedVirtualExecutor("sharding-item-", itemConcurrency));
    }

    private static ThreadPoolTaskScheduler scheduler(String prefix, int threads, Clock clock) {
        // A builder of our own rather than Boot's bean: spring.task.scheduling.* sizes @Scheduled's scheduler, not
        // ours.
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskSchedulerBuilder()
                .poolSize(threads)
                .threadNamePrefix(prefix)
                .build();
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setClock(clock);
        scheduler.initialize();
        return scheduler;
    }

    private static ThreadPoolTaskExecutor pool(String prefix, int threads) {
        ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutorBuilder()
                .corePoolSize(threads)
                .maxPoolSize(threads)
                .allowCoreThreadTimeOut(true)
                .keepAlive(Duration.ofSeconds(60))
                .threadNamePrefix(prefix)
                .build();
        pool.initialize();
        return pool;
    }

    /** The real scheduler: the timer's own task, and the periodic tasks of the lifecycle. */
    public TaskScheduler scheduler() {
        return scheduler;
    }

    /** The jobs' time: the scheduler's clock, which the timer and the coordinators read. */
    public Clock clock() {
        return timer.getClock();
    }

    /** The one timer of every job's cron trigger. */
    public FireTimer timer() {
        return timer;
    }

    /** The executor of coordination work, as the coordinators of the core take it. */
    public ScheduledExecutorService coordination() {
        return coordination;
    }

    public Executor fires() {
        return fires;
    }

    public Executor items() {
        return items;
    }

    /**
     * Stops every thread. By now every job has closed, and a job closes only once every run it started has returned:
     * no item of a job runs any more, whether its threads are daemon threads (virtual ones are) or not, so none can
     * outlive the ZooKeeper session that keeps its claim. A pool shut down before its jobs closed (a context that never
     * stopped its lifecycle) interrupts what it still runs.
     */
    @Override
    public void close() {
        timer.close();
        for (Object executor : new Object[] {fires, items, scheduler, ownCoordination}) {
            try {
                if (executor instanceof ExecutorConfigurationSupport pool) {
                    pool.shutdown();
                } else if (executor instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            } catch (Exception ex) {
                log.warn("Could not stop a sharded job executor: {}", ex.toString());
            }
        }
    }
}
