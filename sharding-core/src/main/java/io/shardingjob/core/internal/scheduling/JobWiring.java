package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.internal.budget.BudgetFigures;
import io.shardingjob.core.internal.config.OperatorChanges;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerKeeper;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.FollowerEdges;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.scheduling.audit.AuditRequests;
import io.shardingjob.core.internal.scheduling.audit.LedgerAudit;
import io.shardingjob.core.internal.scheduling.fire.AssignmentWait;
import io.shardingjob.core.internal.scheduling.fire.ClaimsAhead;
import io.shardingjob.core.internal.scheduling.fire.FireClaims;
import io.shardingjob.core.internal.scheduling.fire.FirePlanner;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ItemEnds;
import io.shardingjob.core.internal.scheduling.fire.ItemHandOff;
import io.shardingjob.core.internal.scheduling.fire.ItemRunner;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.fire.MisfireReports;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.internal.scheduling.session.FollowUps;
import io.shardingjob.core.internal.scheduling.session.GracefulClose;
import io.shardingjob.core.internal.scheduling.session.LeadershipChanges;
import io.shardingjob.core.internal.scheduling.session.PeriodicCheck;
import io.shardingjob.core.internal.scheduling.session.Reconciler;
import io.shardingjob.core.internal.scheduling.session.RegistryReactions;
import io.shardingjob.core.internal.scheduling.session.SessionState;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * The one place one job's parts are built and connected, from its settings, in the order they need each other: the
 * registry's parts, the job as it stands ({@link JobState}, the read-only view every stage gets), the fire path, and
 * the reactions to the world around it. Each part gets the parts it uses, never the runtime or this wiring: this object
 * lives only while it builds, and no part holds it (its lambdas read locals, not its fields). Nothing talks to
 * ZooKeeper while the parts are built.
 */
final class JobWiring {

    private final JobSettings settings;
    private final String jobName;
    private final CoordinationThreads threads;

    private final LeadershipChanges leadership = new LeadershipChanges();

    /** Written by the connection guard alone; read by the job's state. */
    private final SessionState session;

    private final Lifecycle lifecycle = new Lifecycle();
    private final JobRegistry registry;
    private final JobState state;
    private final LedgerParts ledger;
    private final RunMemory memory;

    /** The parts of the fire path the reactions and the close use. */
    private record FirePath(
            FireRunner runner, ItemHandOff handOff, ItemEnds ends, ClaimsAhead ahead, DueFires dueFires) {}

    JobWiring(JobSettings settings) {
        this.settings = settings;
        this.session = new SessionState(settings.instance().client());
        this.jobName = settings.configuration().name();
        String instanceId = InstanceId.validate(settings.instance().instanceId());
        this.threads = CoordinationThreads.of(settings.instance().scheduler(), jobName);
        this.registry = JobRegistry.of(settings, instanceId, threads.serial(), leadership);
        this.state = new JobState(instanceId, settings.instance().clock(), lifecycle, session, registry);
        this.ledger = LedgerParts.of(registry.client(), registry.nodes());
        this.memory = new RunMemory();
    }

    JobRuntime runtime() {
        // Audits are asked for by the stages below and run the audit built after them: bound once it is built.
        AuditRequests audits = new AuditRequests(
                threads.scheduler(),
                threads.serial(),
                state::isStarted,
                registry.sharding()::currentAssignment,
                jobName);
        AssignmentWait assignmentWait = new AssignmentWait(
                registry.sharding(),
                registry.election(),
                state.instanceId(),
                settings.timings().shardingWaitTimeout(),
                state::isAvailable);
        LedgerCompletions completions = completions();
        FirePath fire = firePath(audits, assignmentWait, completions);
        Reconciler reconciler = new Reconciler(
                state,
                registry.election(),
                registry.sharding(),
                keeper(completions, fire.dueFires()),
                ledger.reads(),
                threads.serial());
        FollowUps followUps = new FollowUps(assignmentWait, reconciler, audits);
        FireRunner fires = fire.runner();
        ManualFires manualFires = new ManualFires(ledger.manualFires(), fires.manualFireHandler(), state::now, jobName);
        RegistryReactions reactions = new RegistryReactions(
                state,
                followUps,
                registry.nodes(),
                registry.cache(),
                registry.election(),
                manualFires,
                threads.serial());
        leadership.reactWith(reactions);
        registry.cache().addListener(reactions::registryChanged);
        registry.cache().addListener(registry.configurations().historyCatchUp()::registryChanged);
        ConnectionGuard connection = connectionGuard(followUps);
        JobParts parts = new JobParts(
                registry,
                connection,
                new PeriodicCheck(
                        connection,
                        followUps,
                        threads.serial(),
                        threads.scheduler(),
                        settings.timings().reconcileInterval(),
                        registry.configurations().historyCatchUp()::retryOwed),
                gracefulClose(fire),
                assignmentWait,
                threads);
        LedgerQueries queries =
                new LedgerQueries(ledger.reads(), registry.cache(), registry.nodes(), jobName, state::now);
        BudgetFigures budget = new BudgetFigures(
                settings.history().schedule(),
                settings.history().ledgerRetention().plus(settings.timings().reconcileInterval()),
                settings.instance().clock(),
                settings.instance().client());
        return new JobRuntime(
                settings,
                lifecycle,
                parts,
                state,
                fires,
                operations(manualFires, audits, fire.dueFires(), budget),
                queries,
                budget);
    }

    private JobOperations operations(
            ManualFires manualFires, AuditRequests audits, DueFires dueFires, BudgetFigures budget) {
        OperatorChanges changes = new OperatorChanges(
                registry.client(),
                registry.nodes(),
                jobName,
                settings.instance().clock(),
                settings.history().catchUpHorizon(),
                budget::refuseChange);
        return new JobOperations(registry, changes, state, manualFires, ledger.reruns(), audits, dueFires);
    }

    /** What records a fire's completion for the jobs that follow this one; nobody is told when no listener is set. */
    private LedgerCompletions completions() {
        JobCache cache = registry.cache();
        JobNodes nodes = registry.nodes();
        return new LedgerCompletions(
                ledger.chains(),
                jobName,
                state.instanceId(),
                settings.listeners().completions(),
                () -> FollowerEdges.followers(cache, nodes));
    }

    /** The stages of a fire, from its plan to the write of each item's end, and the audit that makes up for them. */
    private FirePath firePath(AuditRequests audits, AssignmentWait assignmentWait, LedgerCompletions completions) {
        CuratorFramework client = registry.client();
        FireSchedule schedule = settings.history().schedule();
        DueFires dueFires = new DueFires(
                ledger.claims(),
                schedule,
                state::configuration,
                memory::seenFires,
                registry.configurations()::history,
                state::disabledItems);
        ClaimsAhead ahead = new ClaimsAhead(state, ledger.claims(), memory, schedule, dueFires);
        MisfireReports misfires =
                new MisfireReports(jobName, settings.listeners().misfires());
        ItemEnds ends = new ItemEnds(
                state, ledger.claims(), memory, completions, ledger.reads(), ledger.itemWise(), threads.serial());
        // Claim writes drain on the coordination scheduler, on which nothing waits for a claim write (fires and items
        // run elsewhere), so a drain never waits behind a thread that waits for it.
        GroupCommit commits = new GroupCommit(ledger.claims(), threads.scheduler(), ahead);
        ItemRunner items = new ItemRunner(
                state,
                audits,
                new ItemRunner.Ledger(commits, ledger.reads(), dueFires),
                new ItemRunner.Timing(
                        ledger.proof(),
                        () -> Duration.ofMillis(ConnectionGuard.negotiatedSessionTimeoutMillis(client)),
                        threads.scheduler(),
                        settings.instance().clock()),
                memory,
                ends,
                settings.listeners().items());
        ItemHandOff handOff = new ItemHandOff(items);
        FireClaims claims = new FireClaims(
                state,
                audits,
                new FireClaims.Ledger(ledger.claims(), ledger.reads()),
                memory,
                ahead,
                misfires,
                items::leavingSoon);
        FireRunner fireRunner = new FireRunner(
                state,
                new FirePlanner(
                        state,
                        audits,
                        assignmentWait,
                        ledger.manualFires(),
                        memory,
                        ahead,
                        settings.instance().clock()),
                claims,
                items,
                handOff,
                settings.listeners().fires(),
                settings.code());
        FirePath path = new FirePath(fireRunner, handOff, ends, ahead, dueFires);
        audits.auditWith(audit(audits, path, misfires));
        return path;
    }

    private LedgerAudit audit(AuditRequests audits, FirePath fire, MisfireReports misfires) {
        return new LedgerAudit(
                state,
                audits,
                new LedgerAudit.Ledger(ledger.claims(), ledger.reads(), ledger.sessions()),
                new LedgerAudit.Fires(
                        fire.ends(),
                        fire.ahead(),
                        fire.dueFires(),
                        settings.history().catchUpHorizon(),
                        misfires,
                        fire.handOff(),
                        settings.code()),
                memory,
                threads.scheduler());
    }

    private LedgerKeeper keeper(LedgerCompletions completions, DueFires dueFires) {
        return new LedgerKeeper(
                new LedgerKeeper.Ledger(ledger.reads(), ledger.sessions(), ledger.keeper(), ledger.awaited()),
                completions,
                new LedgerKeeper.Horizons(
                        settings.history().ledgerRetention(), settings.history().catchUpHorizon()),
                dueFires,
                threads.scheduler(),
                memory.recordedEnds(),
                memory::holdsOpenClaimOf);
    }

    private ConnectionGuard connectionGuard(FollowUps followUps) {
        return new ConnectionGuard(
                state,
                session,
                followUps,
                registry.client(),
                registry.nodes(),
                threads.serial(),
                new ConnectionGuard.Runs(
                        memory, ledger.proof(), threads.scheduler(), settings.interruptOnConnectionLoss()));
    }

    private GracefulClose gracefulClose(FirePath fire) {
        return new GracefulClose(
                registry.client(),
                registry.nodes(),
                registry.registration(),
                registry.leavingMark(),
                registry.election(),
                memory,
                new GracefulClose.Owed(fire.ends(), fire.ahead()),
                settings.timings().shutdownGracePeriod());
    }
}
