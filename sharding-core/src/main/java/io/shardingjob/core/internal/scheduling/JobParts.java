package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.config.ScheduleHistoryWrites;
import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerKeeper;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.FollowerEdges;
import io.shardingjob.core.internal.registry.InstanceRegistration;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.scheduling.audit.AuditLedger;
import io.shardingjob.core.internal.scheduling.audit.AuditRequests;
import io.shardingjob.core.internal.scheduling.audit.AuditWork;
import io.shardingjob.core.internal.scheduling.audit.LedgerAudit;
import io.shardingjob.core.internal.scheduling.audit.Reruns;
import io.shardingjob.core.internal.scheduling.fire.AssignmentWait;
import io.shardingjob.core.internal.scheduling.fire.ClaimsAhead;
import io.shardingjob.core.internal.scheduling.fire.CompletionChecks;
import io.shardingjob.core.internal.scheduling.fire.FireClaims;
import io.shardingjob.core.internal.scheduling.fire.FirePlanner;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ItemEnds;
import io.shardingjob.core.internal.scheduling.fire.ItemHandOff;
import io.shardingjob.core.internal.scheduling.fire.ItemRunner;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.fire.MisfireReports;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.internal.scheduling.session.GracefulClose;
import io.shardingjob.core.internal.scheduling.session.Reconciler;
import io.shardingjob.core.internal.scheduling.session.RegistryReactions;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts one job's {@link JobRuntime} is made of, built from its settings and connected to each other here, and
 * started and closed here in the order they depend on each other. Kept apart so that the runtime reads as what the job
 * does (its lifecycle, its fires, its answers to operators) rather than as how twenty parts are made. Parts that call
 * back into the runtime are given it here, and none calls it while being built.
 *
 * @param instanceId this instance's id, validated
 * @param scheduler the coordination scheduler: registry reactions, audits, reconciles, claim writes and item
 *     time-outs run on it
 * @param ownsScheduler whether the scheduler is the job's own thread, shut down on close, rather than a shared pool
 * @param serial the job's coordination tasks, one at a time, on the scheduler
 */
record JobParts(
        CuratorFramework client,
        JobNodes nodes,
        String instanceId,
        ScheduledExecutorService scheduler,
        boolean ownsScheduler,
        SerialExecutor serial,
        JobCache cache,
        JobConfigurationService configurations,
        LeaderElection election,
        ShardingService sharding,
        InstanceRegistration registration,
        FireRunner fireRunner,
        AuditRequests audits,
        Reconciler reconciler,
        RegistryReactions reactions,
        LedgerQueries queries,
        ConnectionGuard connection,
        AssignmentWait assignmentWait,
        JobOperations operations,
        GracefulClose gracefulClose,
        ManualFires manualFires,
        Reruns reruns) {

    private static final Logger log = LoggerFactory.getLogger(JobParts.class);

    /** Builds the parts of the runtime's job; nothing talks to ZooKeeper yet. */
    static JobParts wire(JobRuntime runtime, JobSettings settings) {
        CuratorFramework client = settings.client();
        JobConfiguration local = settings.configuration();
        String instanceId = InstanceId.validate(settings.instanceId());
        JobNodes nodes = new JobNodes(local.name());
        boolean ownsScheduler = settings.scheduler() == null;
        ScheduledExecutorService scheduler = ownsScheduler
                ? Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "sharding-" + local.name());
                    thread.setDaemon(true);
                    return thread;
                })
                : settings.scheduler();
        SerialExecutor serial = new SerialExecutor(scheduler);
        JobCache cache = new JobCache(client, nodes, serial);
        JobConfigurationService configurations =
                new JobConfigurationService(client, nodes, cache, local, settings.clock(), settings.catchUpHorizon());
        LeaderElection election =
                new LeaderElection(client, nodes, instanceId, cache, serial, runtime::leadershipChanged);
        ShardingService sharding = new ShardingService(
                client, nodes, cache, configurations::effective, settings.strategies()::get, election::isLeader);
        LedgerParts ledger = LedgerParts.of(client, nodes);
        LedgerCompletions completions = new LedgerCompletions(
                ledger.chains(),
                local.name(),
                instanceId,
                settings.completionListener(),
                () -> FollowerEdges.followers(cache, nodes));
        RunMemory memory = RunMemory.empty();
        // Audits are asked for by the stages below and run the audit built after them: bound once it is built.
        AuditRequests audits =
                new AuditRequests(scheduler, serial, runtime::isStarted, sharding::currentAssignment, local.name());
        AssignmentWait assignmentWait = new AssignmentWait(
                sharding, election, instanceId, settings.shardingWaitTimeout(), runtime::isAvailable);
        CompletionChecks completionChecks = new CompletionChecks(
                completions, ledger.reads(), ledger.itemWise(), serial, runtime::sessionId, local.name());
        // Claim writes drain on the coordination scheduler, on which nothing waits for a claim write (fires and items
        // run elsewhere), so a drain never waits behind a thread that waits for it.
        DueFires dueFires = new DueFires(
                ledger.claims(),
                settings.schedule(),
                runtime::configuration,
                memory.fires()::seen,
                configurations::history,
                runtime::disabledItems);
        ClaimsAhead ahead = new ClaimsAhead(runtime, ledger.claims(), memory, settings.schedule(), dueFires);
        MisfireReports misfires = new MisfireReports(local.name(), settings.misfireListener());
        ItemEnds ends = new ItemEnds(runtime, ledger.claims(), memory.ends(), completionChecks);
        ItemRunner items = new ItemRunner(
                runtime,
                audits,
                new ItemRunner.Ledger(new GroupCommit(ledger.claims(), scheduler, ahead), ledger.reads(), dueFires),
                new ItemRunner.Timing(
                        ledger.proof(),
                        () -> Duration.ofMillis(ConnectionGuard.negotiatedSessionTimeoutMillis(client)),
                        scheduler),
                memory,
                ends,
                settings.listener());
        ItemHandOff handOff = new ItemHandOff(items);
        FireRunner fireRunner = new FireRunner(
                runtime,
                memory.claims(),
                new FirePlanner(
                        runtime,
                        audits,
                        assignmentWait,
                        ledger.manualFires(),
                        memory,
                        ahead,
                        new FireClaims(
                                runtime,
                                audits,
                                new FireClaims.Ledger(ledger.claims(), ledger.reads()),
                                memory,
                                ahead,
                                misfires,
                                items::leavingSoon)),
                items,
                handOff,
                settings.fireListener());
        AuditLedger audited = new AuditLedger(ledger.claims(), ledger.reads(), ledger.sessions());
        audits.auditWith(new LedgerAudit(
                runtime,
                audits,
                audited,
                ends,
                memory,
                ahead,
                settings.job(),
                new AuditWork(runtime, audits, audited, handOff, memory, settings.job(), settings.itemExecutor()),
                scheduler,
                settings.catchUpHorizon(),
                dueFires,
                misfires));
        Reconciler reconciler = new Reconciler(
                runtime,
                election,
                sharding,
                new LedgerKeeper(
                        new LedgerKeeper.Ledger(ledger.reads(), ledger.sessions(), ledger.keeper(), ledger.awaited()),
                        completions,
                        settings.ledgerRetention(),
                        settings.catchUpHorizon(),
                        dueFires,
                        scheduler,
                        memory.ends().recorded(),
                        memory.claims()::holdsOpenClaimOf),
                ledger.reads(),
                serial);
        ManualFireHandler handler = settings.manualFireHandler() != null
                ? settings.manualFireHandler()
                : ManualFires.firingOn(
                        handOff.thread(),
                        fireTime -> runtime.fireAsync(ExecutionSource.MANUAL, fireTime),
                        local.name());
        ManualFires manualFires = new ManualFires(ledger.manualFires(), handler, runtime::now, local.name());
        RegistryReactions reactions = new RegistryReactions(
                runtime, assignmentWait, nodes, cache, election, sharding, reconciler, audits, manualFires, instanceId);
        InstanceRegistration registration =
                new InstanceRegistration(client, nodes, instanceId, () -> serial.submit(reactions::instanceRegistered));
        return new JobParts(
                client,
                nodes,
                instanceId,
                scheduler,
                ownsScheduler,
                serial,
                cache,
                configurations,
                election,
                sharding,
                registration,
                fireRunner,
                audits,
                reconciler,
                reactions,
                new LedgerQueries(ledger.reads(), cache, nodes, local.name(), runtime::now),
                new ConnectionGuard(
                        runtime,
                        reconciler,
                        audits,
                        assignmentWait,
                        client,
                        nodes,
                        memory.reservations(),
                        ledger.proof(),
                        scheduler,
                        serial,
                        settings.interruptOnConnectionLoss()),
                assignmentWait,
                new JobOperations(client, nodes, configurations, sharding, local.name(), instanceId),
                new GracefulClose(
                        client,
                        nodes,
                        registration,
                        election,
                        memory.reservations(),
                        ends,
                        ahead,
                        settings.shutdownGracePeriod()),
                manualFires,
                new Reruns(runtime, ledger.reruns(), audits, dueFires));
    }

    /**
     * Creates the job's nodes, publishes or reads the shared configuration, loads the cache, registers this instance
     * and joins the election unless an operator disabled this instance.
     */
    void start(Duration startTimeout) throws Exception {
        // Sent with the structure's read, in the same request: what they find holds once the structure is created.
        CompletableFuture<ScheduleHistoryWrites.Stored> stored = ScheduleHistoryWrites.readStoredAsync(client, nodes);
        CompletableFuture<List<String>> upstreams = FollowerEdges.registeredUpstreamsAsync(client, nodes);
        // A first start stores its configuration with its structure's creates, in one request.
        boolean storedFirst = operations.createStructure(() -> firstStore(answeredOrNull(stored)));
        // Registered with its upstreams before it registers itself: a fire of theirs completing from then on is
        // recorded here, to be made up by this instance's audit if nothing else runs it.
        FollowerEdges.register(
                client, configurations.publish(answeredOrNull(stored), storedFirst), answeredOrNull(upstreams));
        cache.addListener(reactions::registryChanged);
        cache.start(startTimeout);
        connection.start();
        registration.start(startTimeout);
        if (!cache.exists(nodes.disabledInstance(instanceId))) {
            election.join();
        }
    }

    /**
     * What stores the configuration on a first start, as the early read found the registry; nothing when it failed, or
     * when the configuration is refused: the publish then reads again, and refuses it naming the job and the property.
     */
    private List<Op> firstStore(ScheduleHistoryWrites.@Nullable Stored stored) {
        if (stored == null) {
            return List.of();
        }
        try {
            return configurations.firstStore(stored);
        } catch (JobConfigurationException refused) {
            return List.of();
        }
    }

    /** An early read's answer; null when it failed (lost with the connection), and its user reads again. */
    private static <T> @Nullable T answeredOrNull(CompletableFuture<T> read) {
        try {
            return read.join();
        } catch (CompletionException | CancellationException failed) {
            return null;
        }
    }

    /**
     * Closes every part that holds a resource, each even if an earlier one fails (the client may be closed already).
     *
     * @return whether the registration was deleted while its session lives on (see {@link InstanceRegistration#leave()})
     */
    boolean close() {
        connection.close();
        closeQuietly(election, "leader election");
        boolean deregistered = false;
        try {
            deregistered = registration.leave();
        } catch (RuntimeException ex) {
            log.warn("Job {}: closing the {} failed: {}", JobNodes.name(nodes.root()), "registration", ex.toString());
        }
        closeQuietly(cache, "cache");
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        return deregistered;
    }

    private void closeQuietly(AutoCloseable part, String what) {
        try {
            part.close();
        } catch (Exception ex) {
            log.warn("Job {}: closing the {} failed: {}", JobNodes.name(nodes.root()), what, ex.toString());
        }
    }
}
