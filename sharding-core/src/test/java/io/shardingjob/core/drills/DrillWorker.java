package io.shardingjob.core.drills;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.JobCoordinatorBuilder;
import io.shardingjob.core.JobDefinitions;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.execution.ShardingContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jspecify.annotations.Nullable;

/**
 * One instance of the drill job in a process of its own, using only the core's public API, so that a drill can
 * {@code kill -9}, {@code SIGSTOP} or {@code SIGTERM} it. It fires the job on every whole second and prints one flushed
 * line per event on its standard output (a file, which survives {@code kill -9}):
 *
 * <ul>
 *   <li>{@code ready <ms>} once started;
 *   <li>{@code start <item> <fire ms> <start ms> <source>} on entry to the item's code, before it runs;
 *   <li>{@code end <item> <fire ms> <start ms> <end ms> <source> <ok|failed>} from the execution listener;
 *   <li>{@code not-started <item> <fire ms> <source>} from the listener for a run the coordinator refused before the
 *       item's code was entered;
 *   <li>{@code closed <ms>} when a graceful stop (SIGTERM) is done.
 * </ul>
 *
 * <p>{@link ShardingContext} carries no fire time, so the start line learns it from the fire call: the thread calling
 * {@link JobCoordinator#fire(ExecutionSource, Instant)} hands its items to the item executor, which passes that fire
 * on to the first item run of the task. A run the coordinator starts on its own (a failover run, a misfire run) has no
 * such caller: its start line says {@code -} for the fire and the source, and its end line tells them. The end line
 * repeats the start line's own start time, so that the two are matched exactly (the listener runs on the item's
 * thread). Should a future coordinator hand items over from another thread, start lines say {@code -} more often and
 * nothing else changes.
 *
 * <p>The clock loop behaves as Spring's cron scheduling does after a pause: a fire whose time passed while the process
 * was frozen is fired once, late, with its own (stale) fire time, and the next one is the next whole second.
 *
 * <p>Arguments: connect string, namespace, instance id, session timeout ms, items, item duration ms. The settings of
 * the drill matrix are system properties:
 *
 * <ul>
 *   <li>{@code drill.failover} ({@code true}): the job's {@code failover};
 *   <li>{@code drill.stubbornMillis} ({@code 0}): an interrupted item stops at once when 0; otherwise it keeps running
 *       this long after being interrupted, as code that ignores interrupts does;
 *   <li>{@code drill.itemThreads} ({@code 16}): the item pool; fewer threads than items queue them;
 *   <li>{@code drill.ledgerRetention} ({@code PT5M}): kept long, so that the drill reads the ledger of its whole window
 *       after the fact;
 *   <li>{@code drill.defined} ({@code false}): the job is not declared here but defined at run time ({@link
 *       JobDefinitions}): the worker runs it from its stored configuration (the items and {@code failover} arguments are
 *       then the definition's) while it is defined, stops it when its removal starts and starts it again when it is
 *       defined again, printing {@code job started <ms>} and {@code job stopped <ms>};
 *   <li>{@code drill.follower} (none): {@code fire-wise} or {@code item-wise}, a chain: the job {@value #FOLLOWER}
 *       follows the drilled job ({@code after}, on success, no cron: it fires when an upstream fire completed), as
 *       many items, the same {@code failover}, item by item when {@code item-wise}. Its run lines end with its name;
 *       the drilled job's lines carry none, as before chains. The drilled job then has a completion listener that
 *       prints {@code completing <fire ms> <ms>} on the instance that won the fire's completion (whose request
 *       recorded the follower's fire) and lingers {@value #COMPLETION_LINGER_MILLIS} ms before its {@code completed}
 *       note is written, as a listener that tells another system does;
 *   <li>{@code drill.completer} (none): the instance whose items of the drilled job run {@value
 *       #COMPLETER_EXTRA_MILLIS} ms longer, so that its ends are every fire's last and it completes every fire: the one
 *       a chain drill hits;
 *   <li>{@code drill.commands} (none): a file the drill writes an operator's command to, read every {@value
 *       #COMMAND_POLL_MILLIS} ms: {@code stand-by} calls {@link JobCoordinator#standBy()} on the drilled job (as the
 *       starter does when the application turns unready) and prints {@code standing-by <ms>} once the call returned,
 *       {@code resume} calls {@link JobCoordinator#resume()} and prints {@code resumed <ms>}. The file holds the state
 *       wanted, not an event: a command is done once however often it is read, and a rewrite with another one is the
 *       next.
 * </ul>
 *
 * <p>It also prints {@code connection <state> <ms>} on every change of its client's connection state, so that a judge
 * knows when a frozen or cut-off process learned it lost its session; and {@code missed <fire ms> <items> <detail>}
 * and {@code overran <fire ms> <items>} from its misfire listener, for people reading the records.
 *
 * <p>It fires on the job's cron as the stored configuration says it now ({@code * * * * * *} or {@code *}{@code /N * *
 * * * *}), so that an operator's cron change reaches it, as the starter's scheduling does.
 */
public final class DrillWorker {

    static final String JOB = "drill";

    /** The job following {@link #JOB} in a chain drill. */
    static final String FOLLOWER = "follower";

    /** How long the drilled job's completion listener runs: the completer's window between its two notes. */
    static final long COMPLETION_LINGER_MILLIS = 100;

    /** How much longer the completer's items run than the others': enough to end last despite a loaded machine. */
    static final long COMPLETER_EXTRA_MILLIS = 200;

    /** How often a worker reads its command file: well within a period, so a command reaches the next fire. */
    static final long COMMAND_POLL_MILLIS = 100;

    /** The fire the calling thread is firing; read by the item executor when the coordinator hands it an item. */
    private static final ThreadLocal<Fire> FIRING = new ThreadLocal<>();

    /** The fire handed to this item thread with its task, for the task's first run only. */
    private static final ThreadLocal<Fire> HANDED = new ThreadLocal<>();

    /** When the item code running on this thread was entered, for its end line. */
    private static final ThreadLocal<Long> STARTED = new ThreadLocal<>();

    private record Fire(Instant time, ExecutionSource source) {}

    private DrillWorker() {}

    public static void main(String[] args) throws Exception {
        String connectString = args[0];
        String namespace = args[1];
        String instanceId = args[2];
        int sessionTimeout = Integer.parseInt(args[3]);
        int items = Integer.parseInt(args[4]);
        long itemMillis = Long.parseLong(args[5]);
        boolean failover = Boolean.parseBoolean(System.getProperty("drill.failover", "true"));
        long stubbornMillis = Long.getLong("drill.stubbornMillis", 0);
        int itemThreads = Integer.getInteger("drill.itemThreads", 16);
        Duration retention = Duration.parse(System.getProperty("drill.ledgerRetention", "PT5M"));
        String follower = System.getProperty("drill.follower", "");
        long upstreamExtraMillis =
                instanceId.equals(System.getProperty("drill.completer")) ? COMPLETER_EXTRA_MILLIS : 0;
        CuratorFramework client = connect(connectString, namespace, sessionTimeout);
        ExecutorService pool = Executors.newFixedThreadPool(itemThreads);
        Function<JobConfiguration, JobCoordinatorBuilder> builders = configuration -> JobCoordinator.builder(
                        client, configuration)
                .instanceId(instanceId)
                .job(
                        context -> {
                            started(context);
                            work(
                                    itemMillis + (context.jobName().equals(JOB) ? upstreamExtraMillis : 0),
                                    stubbornMillis);
                        },
                        handingOnTheFire(pool))
                .listener(DrillWorker::ended)
                .misfireListener(new MisfireListener() {
                    @Override
                    public void fireMissed(String jobName, Instant fireTime, List<Integer> missed, String detail) {
                        print("missed " + fireTime.toEpochMilli() + " " + missed + " " + detail + named(jobName));
                    }

                    @Override
                    public void fireOverran(String jobName, Instant fireTime, List<Integer> busy, String detail) {
                        print("overran " + fireTime.toEpochMilli() + " " + busy + named(jobName));
                    }
                })
                .shutdownGracePeriod(Duration.ofSeconds(5))
                .ledgerRetention(retention);
        Function<JobConfiguration, JobCoordinator> coordinators = configuration -> {
            JobCoordinatorBuilder builder = builders.apply(configuration)
                    // The job's cron as the starter would read it.
                    .schedule((stored, after) -> nextFire(stored.cron(), after.toEpochMilli()));
            if (!follower.isEmpty()) {
                builder.completionListener(DrillWorker::completing);
            }
            return builder.build();
        };
        AtomicReference<JobCoordinator> running = new AtomicReference<>();
        AutoCloseable following;
        if (Boolean.getBoolean("drill.defined")) {
            following = followDefinitions(client, coordinators, running);
        } else {
            JobCoordinator coordinator = coordinators.apply(job(items, failover));
            coordinator.start();
            running.set(coordinator);
            following = () -> {};
        }
        // The follower fires only when told by its upstream's completer, or by its own audit: no schedule.
        JobCoordinator followerCoordinator = follower.isEmpty()
                ? null
                : builders.apply(follower(items, failover, follower.equals("item-wise")))
                        .build();
        if (followerCoordinator != null) {
            followerCoordinator.start();
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                following.close();
                            } catch (Exception ex) {
                                print("could not stop following the definitions: " + ex);
                            }
                            JobCoordinator coordinator = running.getAndSet(null);
                            if (coordinator != null) {
                                coordinator.close();
                            }
                            if (followerCoordinator != null) {
                                followerCoordinator.close();
                            }
                            client.close();
                            print("closed " + System.currentTimeMillis());
                        },
                        "drill-worker-stop"));
        String commands = System.getProperty("drill.commands", "");
        if (!commands.isEmpty()) {
            followCommands(Path.of(commands), running);
        }
        print("ready " + System.currentTimeMillis());
        fireEveryWholeSecond(running);
    }

    /**
     * Reads the command file every {@value #COMMAND_POLL_MILLIS} ms on a daemon thread of its own and does a command it
     * has not done yet to the drilled job's coordinator: {@code stand-by} or {@code resume}. The drill replaces the file
     * in one move, so a read sees a whole command or the one before.
     */
    private static void followCommands(Path file, AtomicReference<JobCoordinator> running) {
        AtomicReference<String> done = new AtomicReference<>("");
        Executors.newSingleThreadScheduledExecutor(task -> {
                    Thread thread = new Thread(task, "drill-worker-commands");
                    thread.setDaemon(true);
                    return thread;
                })
                .scheduleWithFixedDelay(
                        () -> {
                            String command = readCommand(file);
                            JobCoordinator coordinator = running.get();
                            if (command.equals(done.get()) || coordinator == null) {
                                return;
                            }
                            done.set(command);
                            try {
                                switch (command) {
                                    case "stand-by" -> {
                                        coordinator.standBy();
                                        print("standing-by " + System.currentTimeMillis());
                                    }
                                    case "resume" -> {
                                        coordinator.resume();
                                        print("resumed " + System.currentTimeMillis());
                                    }
                                    default -> print("unknown command '" + command + "'");
                                }
                            } catch (RuntimeException ex) {
                                // A scheduled task that throws is never run again: the drill learns it from this line.
                                print("command '" + command + "' failed: " + ex);
                            }
                        },
                        COMMAND_POLL_MILLIS,
                        COMMAND_POLL_MILLIS,
                        TimeUnit.MILLISECONDS);
    }

    private static String readCommand(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (NoSuchFileException none) {
            return "";
        } catch (IOException ex) {
            print("could not read the command file: " + ex);
            return "";
        }
    }

    /**
     * A started client of a drill's worker, connected: it prints {@code connection <state> <ms>} on every change of its
     * connection state.
     */
    static CuratorFramework connect(String connectString, String namespace, int sessionTimeout)
            throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .namespace(namespace)
                .sessionTimeoutMs(sessionTimeout)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                .build();
        client.getConnectionStateListenable()
                .addListener((c, state) -> print("connection " + state + " " + System.currentTimeMillis()));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No connection to " + connectString);
        }
        return client;
    }

    /**
     * Runs the job while it is defined at run time, as the starter does for a job with a handler of this process: starts
     * it from its stored configuration when it is defined, closes it (gracefully) when its removal starts, one change
     * after the other on a thread of its own. Prints {@code job started <ms>} and {@code job stopped <ms>}.
     */
    private static AutoCloseable followDefinitions(
            CuratorFramework client,
            Function<JobConfiguration, JobCoordinator> coordinators,
            AtomicReference<JobCoordinator> running) {
        ExecutorService changes = Executors.newSingleThreadExecutor();
        AtomicReference<JobDefinitions> definitions = new AtomicReference<>();
        JobDefinitions following = new JobDefinitions(
                client,
                new JobDefinitions.Listener() {
                    @Override
                    public void defined(JobDefinitions.Definition definition) {
                        if (definition.jobName().equals(JOB)) {
                            changes.execute(() -> startDefined(definitions.get(), coordinators, running));
                        }
                    }

                    @Override
                    public void removed(String jobName) {
                        if (jobName.equals(JOB)) {
                            changes.execute(() -> stopDefined(running));
                        }
                    }
                },
                FireSchedule.NONE);
        definitions.set(following);
        following.start();
        return () -> {
            following.close();
            changes.shutdown();
            changes.awaitTermination(30, TimeUnit.SECONDS);
        };
    }

    private static void startDefined(
            JobDefinitions definitions,
            Function<JobConfiguration, JobCoordinator> coordinators,
            AtomicReference<JobCoordinator> running) {
        if (running.get() != null) {
            return;
        }
        JobCoordinator coordinator = null;
        try {
            coordinator = coordinators.apply(definitions.storedConfiguration(JOB));
            coordinator.start();
            running.set(coordinator);
            print("job started " + System.currentTimeMillis());
        } catch (Exception ex) {
            print("job not started: " + ex);
            if (coordinator != null) {
                coordinator.close();
            }
        }
    }

    private static void stopDefined(AtomicReference<JobCoordinator> running) {
        JobCoordinator coordinator = running.getAndSet(null);
        if (coordinator != null) {
            coordinator.close();
            print("job stopped " + System.currentTimeMillis());
        }
    }

    static JobConfiguration job(int items, boolean failover) {
        return JobConfiguration.builder(JOB)
                .cron("* * * * * *")
                .shardingTotalCount(items)
                .failover(failover)
                .misfire(true)
                .build();
    }

    /** The job following the drilled job in a chain drill: on the upstream's success, with as many items. */
    static JobConfiguration follower(int items, boolean failover, boolean itemWise) {
        return JobConfiguration.builder(FOLLOWER)
                .shardingTotalCount(items)
                .after(JOB)
                .itemWise(itemWise)
                .failover(failover)
                .misfire(true)
                .build();
    }

    /**
     * The drilled job's completion listener, called on the instance that won a fire's completion: its request recorded
     * the follower's fire. It lingers, so that a drill can hit the completer before its {@code completed} note.
     */
    private static void completing(FireCompletion completion) {
        print("completing " + completion.fireTime().toEpochMilli() + " " + System.currentTimeMillis());
        try {
            Thread.sleep(COMPLETION_LINGER_MILLIS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The job name a run line ends with: none for the drilled job, as the records before chains. */
    private static String named(String jobName) {
        return jobName.equals(JOB) ? "" : " " + jobName;
    }

    /**
     * The item's code: sleeps its duration; when interrupted, stops at once, or (stubborn) goes on for {@code
     * stubbornMillis} more, ignoring further interrupts, and then ends as interrupted.
     */
    private static void work(long itemMillis, long stubbornMillis) throws InterruptedException {
        try {
            Thread.sleep(itemMillis);
        } catch (InterruptedException ex) {
            if (stubbornMillis > 0) {
                long until = System.currentTimeMillis() + stubbornMillis;
                for (long now = System.currentTimeMillis(); now < until; now = System.currentTimeMillis()) {
                    try {
                        Thread.sleep(until - now);
                    } catch (InterruptedException again) {
                        // Ignored, as the stubborn code this stands for does.
                    }
                }
            }
            throw ex;
        }
    }

    /** The next fire of {@code * * * * * *} or {@code *}{@code /N * * * * *} strictly after {@code after} ms. */
    static Instant nextFire(String cron, long after) {
        String seconds = cron.trim().split("\\s+")[0];
        long every = seconds.startsWith("*/") ? Long.parseLong(seconds.substring(2)) : 1;
        long second = after / 1000 + 1;
        while (second % every != 0) {
            second++;
        }
        return Instant.ofEpochSecond(second);
    }

    /**
     * Each fire on a thread of its own: a fire blocks until its items end, and the next second must not wait. The next
     * fire is read from the stored cron after each fire, as a scheduler following configuration changes does.
     */
    private static void fireEveryWholeSecond(AtomicReference<JobCoordinator> running) throws InterruptedException {
        ExecutorService fires = Executors.newCachedThreadPool();
        long next = nextWholeSecond(running.get());
        while (true) {
            for (long now = System.currentTimeMillis(); now < next; now = System.currentTimeMillis()) {
                Thread.sleep(next - now);
            }
            Fire fire = new Fire(Instant.ofEpochMilli(next), ExecutionSource.NORMAL);
            JobCoordinator coordinator = running.get();
            if (coordinator != null) {
                fires.execute(() -> {
                    FIRING.set(fire);
                    try {
                        coordinator.fire(fire.source(), fire.time());
                    } catch (IllegalStateException closed) {
                        // Removed between the read and the fire: a scheduler cancelled at that moment misses it too.
                    } finally {
                        FIRING.remove();
                    }
                });
            }
            next = nextWholeSecond(running.get());
        }
    }

    /** The next whole second of the job's stored cron; every second while the job is not running here. */
    private static long nextWholeSecond(@Nullable JobCoordinator coordinator) {
        String cron = coordinator == null
                ? "* * * * * *"
                : coordinator.configuration().cron();
        return nextFire(cron, System.currentTimeMillis()).toEpochMilli();
    }

    private static Executor handingOnTheFire(ExecutorService itemThreads) {
        return task -> {
            Fire fire = FIRING.get();
            itemThreads.execute(() -> {
                HANDED.set(fire);
                try {
                    task.run();
                } finally {
                    HANDED.remove();
                    STARTED.remove();
                }
            });
        };
    }

    private static void started(ShardingContext context) {
        HANDED.remove();
        long start = System.currentTimeMillis();
        STARTED.set(start);
        // The context names the run's fire and source (a make-up's, a take-over's): every start line is attributed,
        // also of a run whose process is killed before its end line.
        print("start " + context.item() + " " + context.fireTime().toEpochMilli() + " " + start + " " + context.source()
                + named(context.jobName()));
    }

    private static void ended(ItemResult result) {
        Long start = STARTED.get();
        STARTED.remove();
        HANDED.remove();
        if (start == null) {
            print("not-started " + result.context().item() + " "
                    + result.fireTime().toEpochMilli() + " " + result.source()
                    + named(result.context().jobName()));
            return;
        }
        print("end " + result.context().item() + " " + result.fireTime().toEpochMilli() + " " + start + " "
                + result.end().toEpochMilli() + " " + result.source() + " " + (result.succeeded() ? "ok" : "failed")
                + named(result.context().jobName()));
    }

    /** One line of the worker's records, flushed at once so that it survives {@code kill -9}. */
    static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
