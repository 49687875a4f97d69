package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.executionlog.ExecutionHistory;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.support.CronExpression;

/**
 * How precisely the starter fires many jobs on one instance, and what each job costs in threads and heap. Every job is
 * started through the real scheduling path: an application context with the auto-configuration, the lifecycle's
 * {@code added} (the path of a lazily created job bean), {@code ShardedJobExecutors}, a {@code JobTrigger} per job on
 * the instance's one {@code FireTimer}. The
 * delay of a fire is from its scheduled time to the start of its item, as a {@link ShardedJobListener} bean sees it.
 */
class FirePrecisionBenchmark {

    private static final String NAME = "fire-precision";

    /** A JVM that compiles fully and holds thousands of jobs, as the core's benchmarks give their server. */

    /**
     * 50 jobs of two items and 500 of one fire every second; 5,000 of one fire every 10 s, a tenth of them each
     * second: 500 fires/s. Each with failover off (the default: each run writes its start when it has a thread) and on
     * (the claims made ahead of a fire carry their starts, so its runs begin with no round trip).
     */
    private static final List<Size> SIZES = List.of(
            new Size(50, 1, 2, false),
            new Size(50, 1, 2, true),
            new Size(500, 1, 1, false),
            new Size(500, 1, 1, true),
            new Size(5_000, 10, 1, false),
            new Size(5_000, 10, 1, true));

    private static final Duration WARM_UP = Duration.ofSeconds(4);

    /**
     * How many fires the instance runs before the second window opens: a fire's path runs once per fire, and the JIT
     * compiles a method fully (C2) only after some thousands of calls, so the first window measures an interpreted or
     * lightly compiled path, and the second the path a service runs after its first minutes.
     */
    private static final long COMPILED_AFTER_FIRES = Long.getLong("fire-precision.compiled-after", 10_000);

    /**
     * The JIT counts as done once its compilers worked less than this over {@link #JIT_QUIET_SPAN}: a hundredth of a
     * core. At 500 fires a second the compiler was still busy 10,000 fires in, taking most of the CPU the fires had.
     */
    private static final Duration JIT_QUIET = Duration.ofMillis(50);

    private static final Duration JIT_QUIET_SPAN = Duration.ofSeconds(5);

    /** How long the second window waits for the JIT to be quiet at most: then it opens anyway, and says so. */
    private static final Duration JIT_PATIENCE = Duration.ofMinutes(5);

    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private static final Duration WINDOW = Duration.ofSeconds(15);

    /** The first window: a fresh service's first half minute once every job is owned. */
    private static final Duration FRESH_WINDOW = Duration.ofSeconds(30);

    /** How long fires of the window may take to show up after it closed before they count as missed. */
    private static final Duration STRAGGLERS = Duration.ofSeconds(15);

    private static final int START_COST_JOBS = 20;

    /** How much the live heap of a context without jobs varies from one context to the next: caches come and go. */
    private static final double HEAP_NOISE_MIB = 1;

    /** Jobs added as the jobs of one bean: a thousand, so that the progress shows every thousand. */
    private static final int JOBS_PER_BEAN = 1_000;

    private static final String SPREAD_PROPERTY = "benchmark.fire-precision.spread";

    private static final String FAILOVER_PROPERTY = "benchmark.fire-precision.failover";

    private static final String ITEMS_PROPERTY = "benchmark.fire-precision.items";

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * How many jobs and over how many seconds their fires are spread: job {@code i} fires at the seconds {@code s} with
     * {@code s % spread == i % spread}; how many items each job has; and whether the jobs fail over.
     */
    record Size(int jobs, int spread, int items, boolean failover) {

        int firesPerSecond() {
            return jobs / spread;
        }

        String schedule() {
            return spread == 1
                    ? "every second, all at once"
                    : "every " + spread + " s, " + firesPerSecond() + " per second (cron i%" + spread + "/" + spread
                            + ")";
        }

        /** The size as the progress lines and the tables' columns name it. */
        String label() {
            return jobs + " jobs of " + items + (items == 1 ? " item" : " items") + ", failover "
                    + (failover ? "on" : "off");
        }
    }

    /** What one size measured. */
    record Result(
            Size size,
            Duration contextStart,
            Duration jobsStart,
            Measured first,
            Measured compiled,
            long failed,
            int threadsBefore,
            int threadsWith,
            int threadsPeak,
            Map<String, Integer> threadNamesBefore,
            Map<String, Integer> threadNamesWith,
            long heapBefore,
            long heapWith,
            long historyRecords,
            Duration stop,
            List<Double> floorDelays,
            List<Double> timerFloorDelays) {}

    /**
     * What one window measured: the window's fires seen and expected, those run twice or made up, the delays, the
     * requests and the CPU time of the JVM's threads.
     */
    record Measured(
            String window,
            Duration length,
            long expected,
            long seen,
            long duplicates,
            long madeUp,
            List<Double> delays,
            RequestCounter.Counts requests,
            long cpuNanos) {}

    @Test
    void measuresFireDelayThreadsAndHeapForFiftyToFiveThousandJobs() throws Exception {
        List<Result> results = new ArrayList<>();
        RequestCounter.Counts startRequests;
        try (ProcessGroup processes = new ProcessGroup()) {
            ZooKeeperServers.Server server = ZooKeeperServers.forBenchmark(processes, "benchmark/" + NAME);
            startRequests = warmUp(server.address());
            // -Dfire-precision.jobs=5000 measures one size only, to look into it; -Dfire-precision.failover=true one
            // setting.
            String only = System.getProperty("fire-precision.jobs", "");
            String failover = System.getProperty("fire-precision.failover", "");
            for (Size size : SIZES) {
                if ((only.isEmpty() || only.equals(String.valueOf(size.jobs())))
                        && (failover.isEmpty() || failover.equals(String.valueOf(size.failover())))) {
                    results.add(measure(server.address(), size));
                }
            }
        }
        report(results, startRequests, bytesPerHistoryRecord());
        for (Result result : results) {
            assertThat(result.failed())
                    .as("failed items at %s", result.size().label())
                    .isZero();
            for (Measured window : List.of(result.first(), result.compiled())) {
                assertThat(window.duplicates())
                        .as("fires run twice at %s, %s", result.size().label(), window.window())
                        .isZero();
            }
        }
    }

    /**
     * A context with a few jobs that do not fire during the run, started and closed before anything is measured, so
     * that the first size's heap does not include loading the classes; it also counts what starting a job asks of
     * ZooKeeper, undisturbed by fires.
     *
     * @return the requests of {@link #START_COST_JOBS} job starts, with the reshards that follow them
     */
    private static RequestCounter.Counts warmUp(String connectString) throws Exception {
        try (ConfigurableApplicationContext context = start(connectString, "warm-up", 0, 1, false)) {
            RequestCounter requests = RequestCounter.attachTo(
                    context.getBean(RegistryCenter.class).client());
            addJobs(context, START_COST_JOBS, started -> {});
            // Each job's leader reshards in the background once the job has registered.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> context.getBean(RunningJobs.class).all().stream()
                            .allMatch(job -> job.coordinator().assignment().epoch() > 0));
            Thread.sleep(500);
            return requests.counts();
        }
    }

    private static ConfigurableApplicationContext start(
            String connectString, String namespace, int spread, int items, boolean failover) {
        return new SpringApplicationBuilder(BenchmarkApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .properties(
                        "sharding.zookeeper.connect-string=" + connectString,
                        "sharding.zookeeper.namespace=" + NAME + "-" + namespace,
                        "sharding.instance-id=benchmark",
                        SPREAD_PROPERTY + "=" + spread,
                        ITEMS_PROPERTY + "=" + items,
                        FAILOVER_PROPERTY + "=" + failover,
                        // Six INFO lines per job at start and stop (stored, started, leads, resharded, scheduled,
                        // closed) would bury the report.
                        "logging.level.io.shardingjob=WARN")
                .run();
    }

    /**
     * Adds jobs {@code 0..jobs-1} {@value #JOBS_PER_BEAN} at a time, the way the lifecycle adds the jobs of a lazily
     * created bean: checked against the namespace's graph and started together.
     */
    private static void addJobs(ConfigurableApplicationContext context, int jobs, IntConsumer started)
            throws NoSuchMethodException {
        ShardedJobLifecycle lifecycle = context.getBean(ShardedJobLifecycle.class);
        TemplateJob template = new TemplateJob();
        Method method = TemplateJob.class.getDeclaredMethod("run");
        ShardedJob annotation = method.getAnnotation(ShardedJob.class);
        for (int from = 0; from < jobs; from += JOBS_PER_BEAN) {
            List<ShardedJobMethod> bean = new ArrayList<>();
            for (int i = from; i < Math.min(jobs, from + JOBS_PER_BEAN); i++) {
                bean.add(ShardedJobMethod.of(jobName(i), "template", template, method, annotation));
            }
            lifecycle.added(bean);
            started.accept(from + bean.size());
        }
    }

    private static Result measure(String connectString, Size size) throws Exception {
        long contextStarting = System.nanoTime();
        ConfigurableApplicationContext context = start(
                connectString,
                size.jobs() + "-" + size.items() + (size.failover() ? "-failover" : ""),
                size.spread(),
                size.items(),
                size.failover());
        Duration contextStart = Duration.ofNanos(System.nanoTime() - contextStarting);
        try {
            FireDelays fires = context.getBean(FireDelays.class);
            RequestCounter requests = RequestCounter.attachTo(
                    context.getBean(RegistryCenter.class).client());

            int threadsBefore = THREADS.getThreadCount();
            Map<String, Integer> threadNamesBefore = threadNames();
            long heapBefore = liveHeap();
            THREADS.resetPeakThreadCount();

            long jobsStarting = System.nanoTime();
            addJobs(context, size.jobs(), started -> {
                if (started % 1_000 == 0) {
                    progress(
                            size,
                            started + " jobs started after "
                                    + seconds(Duration.ofNanos(System.nanoTime() - jobsStarting)) + " s");
                }
            });
            Duration jobsStart = Duration.ofNanos(System.nanoTime() - jobsStarting);
            progress(size, size.jobs() + " jobs started in " + seconds(jobsStart) + " s");
            assertThat(context.getBean(RunningJobs.class).all())
                    .hasSize(size.jobs())
                    .allSatisfy(
                            job -> assertThat(job.coordinator().configuration().monitorExecution())
                                    .as("running marks written")
                                    .isTrue());
            // A job's start returns once it is registered; its election and first assignment follow. At thousands of
            // jobs they take seconds more, and fires of jobs not assigned yet wait for their assignment: the window
            // measures fires of owned jobs.
            await().atMost(Duration.ofSeconds(60).plusMillis(size.jobs() * 20L))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> context.getBean(RunningJobs.class).all().stream()
                            .allMatch(job -> job.coordinator().assignment().epoch() > 0));
            progress(
                    size,
                    "every job owned after " + seconds(Duration.ofNanos(System.nanoTime() - jobsStarting)) + " s");

            Measured first = measureWindow(
                    size,
                    fires,
                    requests,
                    "first " + FRESH_WINDOW.toSeconds() + " s after every job owned",
                    Instant.now(),
                    FRESH_WINDOW);
            int threadsWith = THREADS.getThreadCount();
            int threadsPeak = THREADS.getPeakThreadCount();
            Map<String, Integer> threadNamesWith = threadNames();
            long heapWith = liveHeap();
            long historyRecords = fires.retainedRecords(
                    context.getBean(ShardingProperties.class).getExecution().getHistorySize());

            assertThat(fires.jobsFired()).as("jobs that fired at least once").isEqualTo(size.jobs());
            long warmUpSeconds = COMPILED_AFTER_FIRES / size.firesPerSecond() + 60;
            await().atMost(Duration.ofSeconds(warmUpSeconds))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> fires.runs() >= COMPILED_AFTER_FIRES);
            boolean quiet = awaitQuietJit();
            progress(
                    size,
                    fires.runs() + " fires run, JIT " + (quiet ? "quiet" : "still busy after " + JIT_PATIENCE)
                            + " (compilation time " + JIT.getTotalCompilationTime() + " ms): the second window opens");
            Measured compiled = measureWindow(
                    size,
                    fires,
                    requests,
                    String.format(
                            Locale.ROOT,
                            "compiled: after %,d fires, the JIT %s",
                            COMPILED_AFTER_FIRES,
                            quiet ? "quiet" : "still busy"),
                    Instant.now(),
                    WINDOW);
            long stopping = System.nanoTime();
            context.close();
            Duration stop = Duration.ofNanos(System.nanoTime() - stopping);
            progress(size, "stopped in " + seconds(stop) + " s");
            List<Double> floorDelays = floor(size, false);
            List<Double> timerFloorDelays = floor(size, true);
            return new Result(
                    size,
                    contextStart,
                    jobsStart,
                    first,
                    compiled,
                    fires.failed(),
                    threadsBefore,
                    threadsWith,
                    threadsPeak,
                    threadNamesBefore,
                    threadNamesWith,
                    heapBefore,
                    heapWith,
                    historyRecords,
                    stop,
                    floorDelays,
                    timerFloorDelays);
        } finally {
            context.close();
        }
    }

    /**
     * Waits until the JIT's compilers worked less than {@link #JIT_QUIET} over the last {@link #JIT_QUIET_SPAN}, at most
     * {@link #JIT_PATIENCE}.
     *
     * @return whether the JIT went quiet
     */
    private static boolean awaitQuietJit() throws InterruptedException {
        long deadline = System.nanoTime() + JIT_PATIENCE.toNanos();
        long before = JIT.getTotalCompilationTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(JIT_QUIET_SPAN.toMillis());
            long now = JIT.getTotalCompilationTime();
            if (now - before < JIT_QUIET.toMillis()) {
                return true;
            }
            before = now;
        }
        return false;
    }

    /**
     * Measures the runs of the fires scheduled in a window of {@code length} opened at the first whole second after
     * {@code after} (and one more, so that the window never opens in the middle of an instant's fires).
     */
    private static Measured measureWindow(
            Size size, FireDelays fires, RequestCounter requests, String name, Instant after, Duration length)
            throws InterruptedException {
        Instant from = after.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        Instant to = from.plus(length);
        FireDelays.Window window = fires.window(from, to);
        long expected = expectedFires(size, from, to) * size.items();
        sleepUntil(from);
        long cpuAtFrom = threadsCpuNanos();
        RequestCounter.Counts requestsAtFrom = requests.counts();
        requests.clearPaths();
        sleepUntil(to);
        long cpuNanos = threadsCpuNanos() - cpuAtFrom;
        RequestCounter.Counts windowRequests = requests.counts().since(requestsAtFrom);
        progress(size, name + ": requests in the window: " + windowRequests);
        requests.mostFrequentPaths(15).forEach((path, count) -> progress(size, count + " " + path));
        try {
            await().atMost(STRAGGLERS).pollInterval(Duration.ofMillis(100)).until(() -> window.seen() >= expected);
        } catch (ConditionTimeoutException ex) {
            // Missed fires are reported, not asserted: how many a loaded machine misses is a figure.
        }
        return new Measured(
                name,
                length,
                expected,
                window.seen(),
                window.duplicates(),
                window.madeUp(),
                window.delays(),
                windowRequests,
                cpuNanos);
    }

    /**
     * The delays of the same fires with no library: the starter's pools at their default sizes and Spring's cron
     * triggers alone, or the starter's one timer alone, over a window of the same length.
     */
    private static List<Double> floor(Size size, boolean oneTimer) throws InterruptedException {
        List<String> crons = new ArrayList<>();
        // Each item handed on by a fire of its own: the hand-offs of a fire of n items, with no fire planned.
        for (int i = 0; i < size.jobs(); i++) {
            for (int item = 0; item < size.items(); item++) {
                crons.add(cron(i, size.spread()));
            }
        }
        ShardingProperties defaults = new ShardingProperties();
        Instant from =
                Instant.now().plus(WARM_UP).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        int schedulerThreads = defaults.getScheduler().getPoolSize();
        int fireThreads = defaults.getExecution().getMaxConcurrentFires();
        int itemThreads = defaults.getExecution().getPoolSize();
        List<Double> delays = oneTimer
                ? HandOffFloor.delaysOnOneTimer(
                        crons, schedulerThreads, fireThreads, itemThreads, from, from.plus(WINDOW))
                : HandOffFloor.delays(crons, schedulerThreads, fireThreads, itemThreads, from, from.plus(WINDOW));
        progress(size, (oneTimer ? "one-timer floor" : "floor") + " measured on " + delays.size() + " fires");
        return delays;
    }

    /**
     * The CPU time the JVM's live threads used so far: the library's pools, timer and ZooKeeper client, the benchmark's
     * threads; not the garbage collector's nor the JIT compiler's, which are no Java threads. The ZooKeeper server is
     * a process of its own.
     */
    private static long threadsCpuNanos() {
        long total = 0;
        for (long id : THREADS.getAllThreadIds()) {
            total += Math.max(0, THREADS.getThreadCpuTime(id));
        }
        return total;
    }

    private static void report(List<Result> results, RequestCounter.Counts startRequests, double bytesPerRecord) {
        BenchmarkReport report = new BenchmarkReport(
                "Fire precision, threads and heap of many jobs on one instance",
                "One application context (Spring Boot auto-configuration, default `sharding.*` settings: scheduler"
                        + " pool 2, 8 concurrent fires, 64 items) on one ZooKeeper server process on loopback; n jobs"
                        + " of one or two items with an empty body, added through `ShardedJobLifecycle.added` a thousand at a time and"
                        + " scheduled by its `JobTrigger` on the instance's one `FireTimer`, the fire ledger on (claims and their"
                        + " ends, group-committed). *Delay*: from a fire's scheduled time to its item's start, as a"
                        + " `ShardedJobListener` bean sees it, for every item run of the fires scheduled in two windows:"
                        + " the *first* the " + FRESH_WINDOW.toSeconds() + " s from the second whole second after every"
                        + " job was owned (its first assignment made), when the JIT has compiled little of"
                        + " the fire path (a path run once a fire); the *compiled* one, of " + WINDOW.toSeconds()
                        + " s, opened once the instance ran "
                        + String.format(Locale.ROOT, "%,d", COMPILED_AFTER_FIRES)
                        + " fires and its JIT compilers worked less than " + JIT_QUIET.toMillis() + " ms in "
                        + JIT_QUIET_SPAN.toSeconds()
                        + " s, as a service's instance does in its first minutes (the first window shows the"
                        + " minutes after a start, the second the hours after). Threads and the live heap (the"
                        + " bytes a class histogram counts after a full GC) are taken once the context has started and before any job, then again at the"
                        + " end of the first window. *Floor*: the delay of the same fires with no library, measured right after on"
                        + " the same machine: the starter's three pools at their default sizes and one Spring"
                        + " `CronTrigger` per job, each fire handed from the scheduler to the fire pool to the item"
                        + " pool, where an empty item takes its start time (`HandOffFloor`). What the library costs a"
                        + " fire is its delay above the floor. *One-timer floor*: the same, with the fires on the"
                        + " starter's one `FireTimer` (one pass per instant, the fires handed to the fire pool as a"
                        + " batch) instead of a `CronTrigger` per job. *Threads' CPU per fire*: the CPU time of the"
                        + " JVM's threads over the window (every thread of the library, the ZooKeeper client's, the"
                        + " benchmark's; not the garbage collector's nor the JIT compiler's; the ZooKeeper server is a"
                        + " process of its own) divided by the job fires seen: the fires of an instant share the machine's"
                        + " cores, so a fire's delay grows with the CPU time of the fires of its instant before it. *Failover*:"
                        + " with it on, the claims made ahead of a fire carry their starts, and its runs begin with no"
                        + " request; with it off (the default) each run writes its start once it has an item thread.");
        report.table(
                "jobs",
                "items per job",
                "failover",
                "window",
                "schedule",
                "fires/s: target",
                "fires/s: seen",
                "item runs seen / expected",
                "delay p50 ms",
                "delay p99 ms",
                "delay max ms",
                "floor p50 / p99 ms",
                "one-timer floor p50 / p99 ms",
                "threads' CPU µs per fire",
                "made up (misfire)",
                "ZooKeeper requests per fire");
        for (Result result : results) {
            for (Measured window : List.of(result.first(), result.compiled())) {
                double windowSeconds = window.length().toMillis() / 1_000.0;
                RequestCounter.Counts requests = window.requests();
                double fires =
                        Math.max(1, window.seen() / (double) result.size().items());
                report.row(
                        result.size().jobs(),
                        result.size().items(),
                        result.size().failover() ? "on" : "off",
                        window.window(),
                        result.size().schedule(),
                        result.size().firesPerSecond(),
                        window.seen() / result.size().items() / windowSeconds,
                        window.seen() + " / " + window.expected(),
                        BenchmarkReport.percentile(window.delays(), 50),
                        BenchmarkReport.percentile(window.delays(), 99),
                        BenchmarkReport.percentile(window.delays(), 100),
                        String.format(
                                Locale.ROOT,
                                "%.2f / %.2f",
                                BenchmarkReport.percentile(result.floorDelays(), 50),
                                BenchmarkReport.percentile(result.floorDelays(), 99)),
                        String.format(
                                Locale.ROOT,
                                "%.2f / %.2f",
                                BenchmarkReport.percentile(result.timerFloorDelays(), 50),
                                BenchmarkReport.percentile(result.timerFloorDelays(), 99)),
                        Math.round(window.cpuNanos() / 1_000.0 / fires),
                        window.madeUp(),
                        String.format(
                                Locale.ROOT,
                                "%.2f (%.2f r, %.2f w)",
                                requests.total() / fires,
                                requests.reads() / fires,
                                requests.writes() / fires));
            }
        }
        report.table(
                "jobs",
                "failover",
                "context start s",
                "jobs start s (jobs/s)",
                "threads: before",
                "threads: with jobs (peak)",
                "threads per 1,000 jobs",
                "heap MiB: before",
                "heap MiB: with jobs",
                "heap MiB per 1,000 jobs",
                "heap MiB per 1,000 jobs without the history",
                "history: records (MiB)",
                "context close s");
        for (Result result : results) {
            int jobs = result.size().jobs();
            report.row(
                    jobs,
                    result.size().failover() ? "on" : "off",
                    seconds(result.contextStart()),
                    seconds(result.jobsStart()) + " ("
                            + Math.round(jobs / (result.jobsStart().toMillis() / 1_000.0)) + ")",
                    result.threadsBefore(),
                    result.threadsWith() + " (" + result.threadsPeak() + ")",
                    (result.threadsWith() - result.threadsBefore()) * 1_000.0 / jobs,
                    mebibytes(result.heapBefore()),
                    mebibytes(result.heapWith()),
                    perThousandJobs(result.heapWith() - result.heapBefore(), jobs),
                    perThousandJobs(
                            result.heapWith() - result.heapBefore() - (long) (result.historyRecords() * bytesPerRecord),
                            jobs),
                    result.historyRecords() + " ("
                            + String.format(
                                    Locale.ROOT, "%.1f", mebibytes((long) (result.historyRecords() * bytesPerRecord)))
                            + ")",
                    seconds(result.stop()));
        }
        List<String> columns = new ArrayList<>(List.of("thread name (digits as #)"));
        results.forEach(result -> columns.add(result.size().label() + ": before → with"));
        report.table(columns.toArray(String[]::new));
        Set<String> names = new TreeSet<>();
        results.forEach(result -> {
            names.addAll(result.threadNamesBefore().keySet());
            names.addAll(result.threadNamesWith().keySet());
        });
        for (String name : names) {
            List<Object> cells = new ArrayList<>(List.of(name));
            results.forEach(result -> cells.add(result.threadNamesBefore().getOrDefault(name, 0) + " → "
                    + result.threadNamesWith().getOrDefault(name, 0)));
            report.row(cells.toArray());
        }
        Map<String, String> perJob = new TreeMap<>();
        startRequests
                .byOperation()
                .forEach((operation, count) ->
                        perJob.put(operation, String.format(Locale.ROOT, "%.1f", count / (double) START_COST_JOBS)));
        report.note(String.format(
                Locale.ROOT,
                "*Start*: the lifecycle starts the jobs one after another, each waiting for ZooKeeper. One job's start,"
                        + " with the reshard its leader then makes, sent %.1f requests (%.1f reads, %.1f writes; per"
                        + " operation %s), counted on %d jobs that do not fire.",
                startRequests.total() / (double) START_COST_JOBS,
                startRequests.reads() / (double) START_COST_JOBS,
                startRequests.writes() / (double) START_COST_JOBS,
                perJob,
                START_COST_JOBS));
        report.note("Goal: no fire missed and the thread count independent of the number of jobs; a job costs heap"
                + " (its coordinator, cache and trigger) but no thread. The scheduler, fire and item pools grow to"
                + " their fixed sizes on the first fires, so the threads per 1,000 jobs of the smallest size are"
                + " those pools, not a per-job cost. The live heap of a context varies by up to half a MiB"
                + " from one to the next (*within noise*: a difference under " + (int) HEAP_NOISE_MIB + " MiB), so the"
                + " heap per 1,000 jobs means little at 50 jobs. The heap with jobs includes the in-memory execution history,"
                + " which keeps up to `sharding.execution.history-size` (default 200) records per job: it had not"
                + " filled yet at the end of the first window. One record takes "
                + Math.round(bytesPerRecord) + " bytes (measured apart, on a history filled with 100,000 records), so"
                + " a full history adds "
                + String.format(Locale.ROOT, "%.0f", mebibytes((long) (200_000 * bytesPerRecord)))
                + " MiB per 1,000 jobs. *ZooKeeper requests per fire*: every request of the application's Curator"
                + " client during the window (claims, ends, audits, caches, reconcile) divided by the fires seen. Per-job INFO"
                + " logging is turned off (`logging.level.io.shardingjob=WARN`).");
        report.write();
    }

    /** The scheduled fires whose time falls in {@code [from, to)}, summed over the jobs' crons. */
    private static long expectedFires(Size size, Instant from, Instant to) {
        Map<String, Long> perCron = new HashMap<>();
        long total = 0;
        for (int i = 0; i < size.jobs(); i++) {
            total += perCron.computeIfAbsent(cron(i, size.spread()), cron -> {
                CronExpression expression = CronExpression.parse(cron);
                long count = 0;
                ZonedDateTime time = expression.next(from.minusNanos(1).atZone(ZoneId.systemDefault()));
                while (time != null && time.toInstant().isBefore(to)) {
                    count++;
                    time = expression.next(time);
                }
                return count;
            });
        }
        return total;
    }

    static String jobName(int index) {
        return "fire-" + index;
    }

    /** Every second, every {@code spread} seconds from {@code index % spread}, or, for a spread of 0, yearly. */
    static String cron(int index, int spread) {
        return switch (spread) {
            case 0 -> "0 0 0 1 1 *";
            case 1 -> "* * * * * *";
            default -> (index % spread) + "/" + spread + " * * * * *";
        };
    }

    private static Map<String, Integer> threadNames() {
        Map<String, Integer> names = new TreeMap<>();
        Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .forEach(thread -> names.merge(thread.getName().replaceAll("\\d+", "#"), 1, Integer::sum));
        return names;
    }

    /** The heap one record of the in-memory execution history takes, filled the way items fill it. */
    private static double bytesPerHistoryRecord() throws JMException {
        int jobs = 500;
        int perJob = 200;
        ExecutionHistory history = new ExecutionHistory(perJob);
        long before = liveHeap();
        for (int i = 0; i < jobs; i++) {
            String job = jobName(i);
            for (int run = 0; run < perJob; run++) {
                Instant fireTime = Instant.now();
                history.executed(new ExecutionRecord(
                        job,
                        0,
                        "",
                        "benchmark",
                        1,
                        fireTime,
                        Instant.now(),
                        Instant.now(),
                        ExecutionRecord.Outcome.SUCCESS,
                        ExecutionSource.NORMAL,
                        null,
                        1,
                        "",
                        0));
            }
        }
        long after = liveHeap();
        assertThat(history.recent(jobName(0))).hasSize(perJob);
        return (after - before) / (double) (jobs * perJob);
    }

    /**
     * The bytes of the objects still reachable after a full GC, as the class histogram counts them. Not the heap's
     * "used" after {@code System.gc()}: the parallel collector leaves dead objects in a dense prefix of the old
     * generation, which made that figure vary by 2-3 MiB between two contexts without a job.
     */
    private static long liveHeap() throws JMException {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "gcClassHistogram",
                        new Object[] {new String[0]},
                        new String[] {String[].class.getName()});
        Matcher total = Pattern.compile("Total\\s+\\d+\\s+(\\d+)").matcher(histogram);
        if (!total.find()) {
            throw new IllegalStateException("No total in the class histogram:\n" + histogram);
        }
        return Long.parseLong(total.group(1));
    }

    private static void sleepUntil(Instant time) throws InterruptedException {
        long millis = Duration.between(Instant.now(), time).toMillis();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /** MiB per 1,000 jobs, unless the difference is within what the heap after GC varies by between runs. */
    private static Object perThousandJobs(long bytes, int jobs) {
        double mebibytes = mebibytes(bytes);
        return Math.abs(mebibytes) < HEAP_NOISE_MIB ? "within noise" : mebibytes * 1_000.0 / jobs;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1_000.0;
    }

    private static double mebibytes(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    private static void progress(Size size, String message) {
        System.out.println("[" + NAME + "] " + size.label() + ": " + message);
    }

    /** An application with the auto-configuration, a listener that times the fires, and the jobs' crons. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BenchmarkApplication {

        @Bean
        FireDelays fireDelays() {
            return new FireDelays();
        }

        /**
         * The cron of each job. Not {@code sharding.jobs.<name>.cron}: the lifecycle checks at start that every
         * configured job is declared, and these jobs are added after the start.
         */
        @Bean
        ShardedJobConfigurationCustomizer spreadSchedules(Environment environment) {
            int spread = environment.getRequiredProperty(SPREAD_PROPERTY, Integer.class);
            boolean failover = environment.getRequiredProperty(FAILOVER_PROPERTY, Boolean.class);
            int items = environment.getRequiredProperty(ITEMS_PROPERTY, Integer.class);
            return (jobName, configuration) -> configuration
                    .cron(cron(Integer.parseInt(jobName.substring("fire-".length())), spread))
                    .shardingTotalCount(items)
                    .failover(failover);
        }
    }

    /** The method every job calls: nothing, so that what is measured is the scheduling around it. */
    static final class TemplateJob {

        @ShardedJob(name = "template", cron = "* * * * * *", shardingTotalCount = 1)
        void run() {}
    }

    /** Times the scheduled fires whose time falls in the window; counts everything else. */
    static final class FireDelays implements ShardedJobListener {

        private final Map<String, LongAdder> runsByJob = new ConcurrentHashMap<>();

        private final LongAdder runs = new LongAdder();

        private final LongAdder failed = new LongAdder();

        private volatile Window window = new Window(Instant.MAX, Instant.MAX);

        /** Times the fires scheduled in {@code [from, to)} from now on; the window before is left as it was. */
        Window window(Instant from, Instant to) {
            Window next = new Window(from, to);
            window = next;
            return next;
        }

        @Override
        public void executed(ExecutionRecord execution) {
            runsByJob.computeIfAbsent(execution.job(), job -> new LongAdder()).increment();
            runs.increment();
            if (execution.outcome() != ExecutionRecord.Outcome.SUCCESS) {
                failed.increment();
            }
            window.executed(execution);
        }

        long runs() {
            return runs.sum();
        }

        long failed() {
            return failed.sum();
        }

        int jobsFired() {
            return runsByJob.size();
        }

        /** The records the in-memory history holds now: each job's runs, up to its size. */
        long retainedRecords(int historySize) {
            return runsByJob.values().stream()
                    .mapToLong(runs -> Math.min(runs.sum(), historySize))
                    .sum();
        }

        /** The item runs of one window: each one's delay, once; a second run of an item of a fire counts as a duplicate. */
        static final class Window {

            private record Fire(String job, Instant time, int item) {}

            private final Instant from;

            private final Instant to;

            private final Set<Fire> seen = ConcurrentHashMap.newKeySet();

            private final List<Double> delays = Collections.synchronizedList(new ArrayList<>());

            private final LongAdder duplicates = new LongAdder();

            private final LongAdder madeUp = new LongAdder();

            Window(Instant from, Instant to) {
                this.from = from;
                this.to = to;
            }

            void executed(ExecutionRecord execution) {
                if (execution.fireTime().isBefore(from) || !execution.fireTime().isBefore(to)) {
                    return;
                }
                if (execution.source() != ExecutionSource.NORMAL) {
                    madeUp.increment();
                } else if (seen.add(new Fire(execution.job(), execution.fireTime(), execution.item()))) {
                    delays.add(Duration.between(execution.fireTime(), execution.start())
                                    .toNanos()
                            / 1_000_000.0);
                } else {
                    duplicates.increment();
                }
            }

            long seen() {
                return seen.size();
            }

            long duplicates() {
                return duplicates.sum();
            }

            long madeUp() {
                return madeUp.sum();
            }

            List<Double> delays() {
                synchronized (delays) {
                    return List.copyOf(delays);
                }
            }
        }
    }
}
