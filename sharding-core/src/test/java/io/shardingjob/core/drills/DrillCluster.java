package io.shardingjob.core.drills;

import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.drills.DrillRecords.Interval;
import io.shardingjob.core.drills.DrillRecords.Outcome;
import io.shardingjob.core.drills.DrillRecords.Run;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.TcpProxy;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * The processes of one drill: its ZooKeeper server or ensemble, its {@link DrillWorker}s (each process of an instance
 * with an output file of its own), the faults done to them, and their execution records for {@link DrillRecords}.
 * Everything lives under {@code target/e2e/drills/<drill>/}, emptied when the drill starts.
 */
final class DrillCluster implements AutoCloseable {

    /** A small JVM that starts fast: four of them and ZooKeeper share two cores with the build. */
    private static final List<String> WORKER_JVM = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** Debian's libfaketime, which shifts a process's wall clock ({@code apt-get install faketime}). */
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");

    private final ProcessGroup processes = new ProcessGroup();

    private final String drill;

    private final Path directory;

    private final Duration sessionTimeout;

    private final int items;

    private final Duration itemDuration;

    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    /** The last state of every claim seen since {@link #followLedger()}, deleted ones included. */
    private final Map<DrillRecords.Slot, String> ledgerTrail = new ConcurrentHashMap<>();

    private CuratorCache ledgerFollower;

    private final Map<String, Integer> incarnations = new HashMap<>();

    /** How far each instance's wall clock is ahead of the true one (negative: behind), for its every process. */
    private final Map<String, Duration> clockOffsets = new HashMap<>();

    private String connectString;

    private ZooKeeperServers.Server standalone;

    /** The worker JVMs' {@code -D} settings of the drill matrix ({@link DrillWorker}). */
    private List<String> workerProperties = List.of();

    /** The main class of the worker processes: {@link DrillWorker}, or another taking the same arguments. */
    private Class<?> workerMain = DrillWorker.class;

    /** Whether the workers run the follower of a chain, whose fires must be clean too before the drill's window. */
    private boolean chained;

    /** Each instance's own proxy in front of the standalone server, when the drill cuts workers off one by one. */
    private final Map<String, TcpProxy> proxies = new HashMap<>();

    private boolean proxied;

    /** The connect string of an instance that does not use the others'. */
    private final Map<String, String> connectStrings = new HashMap<>();

    private ZooKeeperServers.ProxiedEnsemble ensemble;

    private CuratorFramework client;

    private JobCoordinator operator;

    /** One process of one instance, from its start to its kill or exit. */
    static final class Worker {

        private final String instanceId;

        private final String name;

        private final Process process;

        private final Output output;

        /** The file the drill writes its commands to ({@code drill.commands} of {@link DrillWorker}). */
        private final Path commands;

        private final long clockOffsetMillis;

        private final List<Interval> freezes = new CopyOnWriteArrayList<>();

        private final List<Interval> cutOffs = new CopyOnWriteArrayList<>();

        private volatile long frozenSince = -1;

        private volatile long cutSince = -1;

        private volatile long endedAt = Long.MAX_VALUE;

        private Worker(
                String instanceId, String name, Process process, Path output, Path commands, long clockOffsetMillis) {
            this.instanceId = instanceId;
            this.name = name;
            this.process = process;
            this.output = new Output(output);
            this.commands = commands;
            this.clockOffsetMillis = clockOffsetMillis;
        }

        String instanceId() {
            return instanceId;
        }

        boolean isAlive() {
            return endedAt == Long.MAX_VALUE;
        }

        /** When it printed {@code ready}, in true time. */
        Optional<Long> readyAt() {
            return record().readyAt();
        }

        DrillRecords.Process record() {
            List<Interval> all = new ArrayList<>(freezes);
            if (frozenSince >= 0) {
                all.add(new Interval(frozenSince, endedAt));
            }
            List<Interval> cuts = new ArrayList<>(cutOffs);
            if (cutSince >= 0) {
                cuts.add(new Interval(cutSince, endedAt));
            }
            return new DrillRecords.Process(name, output.lines(), endedAt, all, cuts, clockOffsetMillis);
        }

        @Override
        public String toString() {
            return name + " (pid " + process.pid() + ")";
        }
    }

    DrillCluster(String drill, Duration sessionTimeout, int items, Duration itemDuration) {
        this.drill = drill;
        this.sessionTimeout = sessionTimeout;
        this.items = items;
        this.itemDuration = itemDuration;
        this.directory = ProcessGroup.workDirectory("drills/" + drill);
        deleteContents(directory);
    }

    /** The workers' settings, as {@code -Dname=value} options of their JVMs; before they start. */
    DrillCluster workerProperties(List<String> properties) {
        this.workerProperties = List.copyOf(properties);
        this.chained = properties.stream().anyMatch(property -> property.startsWith("-Ddrill.follower="));
        return this;
    }

    /**
     * The workers' main class, before they start: it takes {@link DrillWorker}'s arguments (connect string, namespace,
     * instance id, session timeout ms, items, item duration ms) and runs the job {@link DrillWorker#JOB}.
     */
    DrillCluster workerMain(Class<?> main) {
        this.workerMain = main;
        return this;
    }

    /**
     * Runs every process of instance {@code instanceId} with its wall clock {@code offset} ahead of the true one
     * (negative: behind) under {@link #LIBFAKETIME}, before it starts; its monotonic clock stays true. Its records are
     * read less the offset ({@link DrillRecords.Process#clockOffsetMillis}).
     */
    DrillCluster skewClock(String instanceId, Duration offset) {
        if (offset.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("libfaketime is given whole seconds, not " + offset);
        }
        clockOffsets.put(instanceId, offset);
        return this;
    }

    /**
     * The environment of a process whose wall clock is {@code offset} ahead (negative: behind) under libfaketime: {@code
     * FAKETIME_DONT_FAKE_MONOTONIC=1} keeps {@code System.nanoTime}, which times its timeouts, true.
     */
    static Map<String, String> skewedClock(Duration offset) {
        return Map.of(
                "LD_PRELOAD",
                LIBFAKETIME.toString(),
                "FAKETIME",
                (offset.isNegative() ? "-" : "+") + offset.abs().toSeconds() + "s",
                "FAKETIME_DONT_FAKE_MONOTONIC",
                "1");
    }

    /** How far the wall clock of the workers furthest behind lags the true one: their fires run that much late. */
    Duration clockLag() {
        return clockOffsets.values().stream()
                .filter(Duration::isNegative)
                .map(Duration::negated)
                .max(Comparator.naturalOrder())
                .orElse(Duration.ZERO);
    }

    /** Routes each instance's ZooKeeper traffic through a {@link TcpProxy} of its own, so it can be cut off alone. */
    DrillCluster proxied() {
        this.proxied = true;
        return this;
    }

    /** A standalone ZooKeeper server for the workers. */
    ZooKeeperServers.Server standaloneZooKeeper() {
        ZooKeeperServers.Server server = ZooKeeperServers.standalone(processes, "drills/" + drill + "/zookeeper");
        connectString = server.address();
        standalone = server;
        return server;
    }

    /** {@code kill -9} of the standalone server and its restart on its data directory; returns when it serves again. */
    long killAndRestartZooKeeper() {
        standalone = ZooKeeperServers.killAndRestart(processes, standalone);
        return System.currentTimeMillis();
    }

    /**
     * Blackholes the worker's ZooKeeper traffic: its proxy stops forwarding in both directions and keeps every
     * connection open, as a network that drops packets does (what arrives meanwhile is held and delivered at the
     * {@link #reconnect}, as TCP retransmits after a partition heals). Returns when it began.
     */
    long blackhole(Worker worker) {
        proxies.get(worker.instanceId()).freeze();
        worker.cutSince = System.currentTimeMillis();
        return worker.cutSince;
    }

    /**
     * As {@link #blackhole}, right after the proxy passed the worker the answer to a request that proves its session
     * ({@link ProofCut}): the core's interrupt deadline counts from that proof, which is then the cut's start.
     */
    long blackholeAfterAProof(Worker worker) {
        worker.cutSince = ProofCut.afterTheNextProof(proxies.get(worker.instanceId()), Duration.ofSeconds(30));
        return worker.cutSince;
    }

    /** Ends the worker's blackhole; returns when it ended. */
    long reconnect(Worker worker) {
        long at = System.currentTimeMillis();
        worker.cutOffs.add(new Interval(worker.cutSince, at));
        worker.cutSince = -1;
        proxies.get(worker.instanceId()).thaw();
        return at;
    }

    /**
     * An operator's handle on the job, in the test process: a coordinator of an instance {@code operator} that an
     * operator disabled before it started, so that it is given no items and runs nothing, and calls the core API the
     * starter's operations and endpoint call.
     */
    JobCoordinator operator() {
        if (operator == null) {
            try {
                client().create()
                        .creatingParentsIfNeeded()
                        .forPath("/" + DrillWorker.JOB + "/disabled/instances/operator");
            } catch (Exception ex) {
                throw new IllegalStateException("could not disable the operator's instance", ex);
            }
            operator = JobCoordinator.builder(client(), DrillWorker.job(items, true))
                    .instanceId("operator")
                    .job(
                            context -> {
                                throw new IllegalStateException("the operator's instance runs nothing");
                            },
                            // A pool, not a direct executor, which the builder refuses; it never gets an item.
                            java.util.concurrent.ForkJoinPool.commonPool())
                    .build();
            operator.start();
        }
        return operator;
    }

    /**
     * The state of every claim of the fire ledger ({@code COALESCED}, {@code SKIPPED}, {@code DONE}, ...), read by the
     * test process from ZooKeeper: the record that excuses a missed item-fire. Workers keep the ledger five minutes,
     * longer than any drill.
     */
    Map<DrillRecords.Slot, String> ledger() {
        Map<DrillRecords.Slot, String> states = new HashMap<>(ledgerTrail);
        states.putAll(ledger(DrillWorker.JOB));
        return states;
    }

    /**
     * The state of every claim of the job's fire ledger as ZooKeeper holds it now. Read again while the test's own
     * client is still reconnecting after a fault of ZooKeeper (seen after a frozen server: its connection lost past the
     * client's retries).
     */
    Map<DrillRecords.Slot, String> ledger(String job) {
        return await().atMost(Duration.ofSeconds(30))
                .ignoreExceptionsMatching(ex -> ex.getCause() instanceof KeeperException.ConnectionLossException)
                .until(() -> readLedger(job), states -> true);
    }

    private Map<DrillRecords.Slot, String> readLedger(String job) {
        Map<DrillRecords.Slot, String> states = new HashMap<>();
        String ledger = new JobNodes(job).ledger();
        try {
            for (String fire : client().getChildren().forPath(ledger)) {
                for (String item : client().getChildren().forPath(ledger + "/" + fire)) {
                    String path = ledger + "/" + fire + "/" + item;
                    claimState(path, client().getData().forPath(path))
                            .ifPresent(claim -> states.put(claim.slot(), claim.state()));
                }
            }
        } catch (Exception ex) {
            throw new IllegalStateException("could not read the fire ledger of " + job, ex);
        }
        return states;
    }

    /** The job's fire node as ZooKeeper holds it (its note first, then its origin), its lines joined by {@code |}. */
    String fireNode(String job, Instant fire) {
        try {
            byte[] data = client().getData().forPath(new JobNodes(job).ledgerFire(fire));
            return String.join(
                    "|", new String(data, StandardCharsets.UTF_8).lines().toList());
        } catch (Exception ex) {
            return "not read: " + ex;
        }
    }

    /**
     * Keeps, from now on, the last state of every claim the ledger held, also once the ledger is deleted (a job
     * removed and defined again loses its ledger): {@link #ledger()} then answers for the removed job's fires too.
     */
    void followLedger() {
        CuratorCache cache = CuratorCache.build(client(), new JobNodes(DrillWorker.JOB).ledger());
        cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forCreatesAndChanges((before, node) -> claimState(node.getPath(), node.getData())
                                .ifPresent(claim -> ledgerTrail.put(claim.slot(), claim.state())))
                        .build());
        cache.start();
        ledgerFollower = cache;
    }

    private record RecordedClaim(DrillRecords.Slot slot, String state) {}

    /** The claim a node of the ledger holds ({@code /.ledger/drill/<fire ms>/<item>}); empty for any other node. */
    private static Optional<RecordedClaim> claimState(String path, byte[] data) {
        String[] parts = path.split("/");
        if (parts.length != 5 || data == null) {
            return Optional.empty();
        }
        String state = new String(data, StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.startsWith("state="))
                .map(line -> line.substring("state=".length()))
                .findFirst()
                .orElse("RUNNING");
        Instant fireTime = Instant.ofEpochMilli(Long.parseLong(parts[3]));
        return Optional.of(new RecordedClaim(new DrillRecords.Slot(Integer.parseInt(parts[4]), fireTime), state));
    }

    /** A client of the test process, rooted at the drill's namespace. */
    synchronized CuratorFramework client() {
        if (client == null) {
            client = CuratorFrameworkFactory.builder()
                    .connectString(connectString)
                    .namespace("drill-" + drill)
                    .sessionTimeoutMs((int) sessionTimeout.toMillis())
                    .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                    .build();
            client.start();
        }
        return client;
    }

    /**
     * An ensemble of three ZooKeeper servers whose links to one another go through proxies, a follower that serves its
     * clients for 10 s after it last heard from its leader (twice the session timeout), and instance {@code victim}
     * connected to that follower alone; the others know the other two servers.
     *
     * @return the follower's id
     */
    int followerEnsemble(String victim) {
        ensemble = ZooKeeperServers.proxiedEnsemble(processes, "drills/" + drill + "/zookeeper", 3, 20);
        ZooKeeperServers.Server follower = ensemble.servers().stream()
                .filter(server -> server.mode().equals(Optional.of("follower")))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no follower among " + ensemble.servers()));
        connectString = ZooKeeperServers.connectString(
                ensemble.servers().stream().filter(server -> server != follower).toList());
        connectStrings.put(victim, follower.address());
        return follower.id();
    }

    /**
     * Cuts the follower off from the other servers (every byte between them held, connections kept open); the worker
     * connected to it is cut off too, though its pings are still answered. Returns when it began.
     */
    long cutFollower(int follower, Worker worker) {
        ensemble.cutOff(follower);
        worker.cutSince = System.currentTimeMillis();
        return worker.cutSince;
    }

    /** Ends the follower's cut; returns when it ended. */
    long reconnectFollower(int follower, Worker worker) {
        long at = System.currentTimeMillis();
        worker.cutOffs.add(new Interval(worker.cutSince, at));
        worker.cutSince = -1;
        ensemble.reconnect(follower);
        return at;
    }

    /** An ensemble of three ZooKeeper servers; the workers know all three. */
    List<ZooKeeperServers.Server> zooKeeperEnsemble() {
        List<ZooKeeperServers.Server> servers =
                ZooKeeperServers.ensemble(processes, "drills/" + drill + "/zookeeper", 3);
        connectString = ZooKeeperServers.connectString(servers);
        return servers;
    }

    /** Starts a process of instance {@code instanceId}, with an output file of its own; does not wait for it. */
    Worker start(String instanceId) {
        int incarnation = incarnations.merge(instanceId, 1, Integer::sum) - 1;
        String name = instanceId + "#" + incarnation;
        Path output = directory.resolve(instanceId + "-" + incarnation + ".log");
        Path commands = directory.resolve(instanceId + "-" + incarnation + ".command");
        List<String> command = new ArrayList<>();
        command.add(ProcessGroup.java());
        command.addAll(WORKER_JVM);
        command.addAll(workerProperties);
        command.addAll(List.of(
                "-Ddrill.commands=" + commands,
                "-Dlogback.configurationFile=" + workerLogback(),
                "-cp",
                ProcessGroup.testClassPath(),
                workerMain.getName(),
                proxied ? proxy(instanceId).connectString() : connectStrings.getOrDefault(instanceId, connectString),
                "drill-" + drill,
                instanceId,
                Long.toString(sessionTimeout.toMillis()),
                Integer.toString(items),
                Long.toString(itemDuration.toMillis())));
        Duration offset = clockOffsets.getOrDefault(instanceId, Duration.ZERO);
        Map<String, String> environment = offset.isZero() ? Map.of() : skewedClock(offset);
        Worker worker = new Worker(
                instanceId, name, processes.start(command, environment, output), output, commands, offset.toMillis());
        workers.add(worker);
        return worker;
    }

    private TcpProxy proxy(String instanceId) {
        return proxies.computeIfAbsent(instanceId, id -> {
            try {
                return new TcpProxy(standalone.clientPort());
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
    }

    /** Starts {@code count} instances {@code w0, w1, ...} and waits until each is ready. */
    List<Worker> startWorkers(int count) {
        List<Worker> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            started.add(start("w" + i));
        }
        started.forEach(this::awaitReady);
        return started;
    }

    /** Waits until the worker printed {@code ready}, and returns when it did. */
    long awaitReady(Worker worker) {
        await(worker + " ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .failFast(worker + " exited, see " + worker.output.file, () -> !worker.process.isAlive())
                .until(() -> worker.readyAt().isPresent());
        return worker.readyAt().orElseThrow();
    }

    /**
     * Waits until the cluster settled: three fires in a row, after every worker is ready, in which every item ran
     * exactly once, successfully (in a chain, the follower's items of those fires too). The drill's judged window starts
     * at the first of them. One clean fire is not enough: a reshard still in flight as the workers join can run an item
     * of it a second time a moment later.
     */
    Instant awaitSettled() {
        long ready = workers.stream()
                .filter(Worker::isAlive)
                .mapToLong(worker -> worker.readyAt().orElseThrow())
                .max()
                .orElseThrow();
        Instant first = Instant.ofEpochSecond(ready / 1000 + 1);
        return awaitValue(
                drill + ": three clean fires in a row", Duration.ofSeconds(60), Duration.ofMillis(200), () -> {
                    List<DrillRecords.Process> records = records();
                    List<Run> runs = DrillRecords.runs(records);
                    List<Run> followerRuns = chained
                            ? DrillRecords.runs(records.stream()
                                    .map(process -> process.only(DrillWorker.FOLLOWER))
                                    .toList())
                            : List.of();
                    int inARow = 0;
                    for (Instant fire = first; fire.isBefore(Instant.now()); fire = fire.plusSeconds(1)) {
                        boolean settled = DrillRecords.isSettled(runs, fire, items)
                                && (!chained || DrillRecords.isSettled(followerRuns, fire, items));
                        inARow = settled ? inARow + 1 : 0;
                        if (inARow == 3) {
                            return Optional.of(fire.minusSeconds(2));
                        }
                    }
                    return Optional.empty();
                });
    }

    /**
     * Waits until the worker runs an item that started within the last 100 ms: a fault done right after hits it in the
     * middle of a fire, with most of the item still to run.
     */
    void awaitRunningItem(Worker worker) {
        await(worker + " running an item")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> DrillRecords.runs(worker.record()).stream()
                        .anyMatch(run ->
                                run.outcome() == Outcome.RUNNING && run.start() > System.currentTimeMillis() - 100));
    }

    /**
     * Waits until the worker printed, within the last 50 ms, that it won a fire's completion of the drilled job (its
     * completion listener's {@code completing} line): a fault done right after hits it after its request recorded the
     * follower's fire and before its {@code completed} note. Returns that fire.
     */
    Instant awaitCompleting(Worker worker) {
        return awaitValue(worker + " completing a fire", Duration.ofSeconds(30), Duration.ofMillis(5), () -> {
            DrillRecords.Process record = worker.record();
            return record.lines().stream()
                    .filter(line -> line.startsWith("completing "))
                    .map(line -> line.split(" "))
                    .filter(fields -> record.trueTime(fields[2]) > System.currentTimeMillis() - 50)
                    .map(fields -> Instant.ofEpochMilli(Long.parseLong(fields[1])))
                    .reduce((earlier, later) -> later);
        });
    }

    /**
     * Tells the worker to stand by ({@link JobCoordinator#standBy()}, as its application turning unready does) and
     * waits until it printed that the call returned. Returns when the command was given: its {@code standing-by} line
     * is the first after that.
     */
    long standBy(Worker worker) {
        return command(worker, "stand-by", "standing-by");
    }

    /** Tells the worker to take items again ({@link JobCoordinator#resume()}); as {@link #standBy}. */
    long resume(Worker worker) {
        return command(worker, "resume", "resumed");
    }

    private long command(Worker worker, String command, String done) {
        long at = System.currentTimeMillis();
        try {
            // Replaced in one move: the worker reads a whole command or the one before, never a part.
            Path next = worker.commands.resolveSibling(worker.commands.getFileName() + ".next");
            Files.writeString(next, command);
            Files.move(next, worker.commands, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        awaitPrinted(worker, done, at);
        return at;
    }

    /** Waits until the worker printed {@code <word> <ms>} with a time from {@code since} on; returns that time. */
    long awaitPrinted(Worker worker, String word, long since) {
        return awaitValue(worker + " printing '" + word + "'", Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
            DrillRecords.Process record = worker.record();
            return record.lines().stream()
                    .filter(line -> line.startsWith(word + " "))
                    .map(line -> record.trueTime(line.substring(word.length() + 1)))
                    .filter(time -> time >= since)
                    .findFirst();
        });
    }

    /** Polls {@code probe} until it has a value, and returns that value. */
    static <T> T awaitValue(String what, Duration atMost, Duration pollInterval, Callable<Optional<T>> probe) {
        return await(what)
                .atMost(atMost)
                .pollInterval(pollInterval)
                .until(probe, Optional::isPresent)
                .orElseThrow();
    }

    /** {@code kill -9}; returns when it is gone. */
    long kill(Worker worker) {
        ProcessGroup.kill(worker.process);
        worker.endedAt = System.currentTimeMillis();
        return worker.endedAt;
    }

    /** SIGTERM, a graceful stop; returns when it exited. */
    long terminate(Worker worker) {
        worker.process.destroy();
        try {
            if (!worker.process.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(worker + " did not exit within 60 s of SIGTERM");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        worker.endedAt = System.currentTimeMillis();
        return worker.endedAt;
    }

    /** SIGSTOP; returns when the signal was sent. */
    long freeze(Worker worker) {
        signal(worker.process, "STOP");
        worker.frozenSince = System.currentTimeMillis();
        return worker.frozenSince;
    }

    /** SIGCONT; returns when the signal is about to be sent. */
    long thaw(Worker worker) {
        long thawedAt = System.currentTimeMillis();
        worker.freezes.add(new Interval(worker.frozenSince, thawedAt));
        worker.frozenSince = -1;
        signal(worker.process, "CONT");
        return thawedAt;
    }

    /** Sends {@code SIG<name>} to the process, through {@code kill(1)}: Java sends only TERM and KILL. */
    static void signal(Process process, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Ends the drill: reads every process's records, then kills every worker still running ({@code kill -9}). Their
     * runs in progress are recorded as still running, not as cut by a fault.
     */
    List<DrillRecords.Process> finish() {
        List<DrillRecords.Process> records = records();
        stopWorkers();
        return records;
    }

    /** Kills every worker still running ({@code kill -9}). */
    void stopWorkers() {
        workers.stream().filter(Worker::isAlive).forEach(this::kill);
    }

    /** Every process's records so far. */
    List<DrillRecords.Process> records() {
        return workers.stream().map(Worker::record).toList();
    }

    Path directory() {
        return directory;
    }

    @Override
    public void close() {
        if (ledgerFollower != null) {
            ledgerFollower.close();
        }
        if (operator != null) {
            operator.close();
        }
        stopWorkers();
        if (client != null) {
            client.close();
        }
        proxies.values().forEach(TcpProxy::close);
        processes.close();
        if (ensemble != null) {
            ensemble.links().values().forEach(links -> links.forEach(TcpProxy::close));
        }
    }

    /** Appends a drill's counts, with the time, to {@code target/e2e/drills/results.txt}, the record of every drill. */
    static void appendResult(String summary) {
        try {
            Files.writeString(
                    ProcessGroup.workDirectory("drills").resolve("results.txt"),
                    Instant.now() + " " + summary + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ex) {
            System.out.println("could not record the result: " + ex);
        }
    }

    /**
     * The scenario's own time, not a wait for a condition: a fault lasts this long (or the drill goes on this long)
     * whatever happens meanwhile.
     */
    static void holdUntil(long deadline) {
        try {
            for (long now = System.currentTimeMillis(); now < deadline; now = System.currentTimeMillis()) {
                Thread.sleep(Math.min(100, deadline - now));
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private Path workerLogback() {
        Path file = directory.resolve("worker-logback.xml");
        if (Files.notExists(file)) {
            try {
                Files.writeString(file, """
                        <configuration>
                          <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n</pattern></encoder>
                          </appender>
                          <logger name="io.shardingjob" level="INFO"/>
                          <root level="WARN"><appender-ref ref="OUT"/></root>
                        </configuration>
                        """);
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return file;
    }

    private static void deleteContents(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .filter(path -> !path.equals(directory))
                    .map(Path::toFile)
                    .forEach(File::delete);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A growing output file, read from where the last read stopped; only complete lines. */
    private static final class Output {

        private final Path file;

        private final List<String> lines = new ArrayList<>();

        private final StringBuilder partial = new StringBuilder();

        private long offset;

        Output(Path file) {
            this.file = file;
        }

        synchronized List<String> lines() {
            try (SeekableByteChannel channel = Files.newByteChannel(file)) {
                long size = channel.size();
                if (size > offset) {
                    ByteBuffer buffer = ByteBuffer.allocate((int) (size - offset));
                    channel.position(offset);
                    while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                        // Until the size seen.
                    }
                    offset += buffer.position();
                    // Records are ASCII; Latin-1 never splits a character between two reads.
                    partial.append(new String(buffer.array(), 0, buffer.position(), StandardCharsets.ISO_8859_1));
                    for (int end = partial.indexOf("\n"); end >= 0; end = partial.indexOf("\n")) {
                        lines.add(partial.substring(0, end));
                        partial.delete(0, end + 1);
                    }
                }
            } catch (NoSuchFileException ex) {
                return List.of();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            return List.copyOf(lines);
        }
    }
}
