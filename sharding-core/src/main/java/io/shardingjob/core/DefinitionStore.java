package io.shardingjob.core;

import io.shardingjob.core.JobDefinitions.Definition;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.config.JobSetting;
import io.shardingjob.core.internal.budget.BudgetFigures;
import io.shardingjob.core.internal.config.JobGraph;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.StoredConfiguration;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.RemovedJobState;
import io.shardingjob.core.internal.requests.SizeRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.TransactionOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes behind {@link JobDefinitions#define}, {@link JobDefinitions#update} and {@link JobDefinitions#remove}: a
 * definition stored with its job's
 * configuration and schedule history in one transaction, checked against the graph of the namespace's jobs at the
 * version of the definitions it was checked with; a removal marked, then the job's state deleted, then its definition.
 */
final class DefinitionStore {

    /** The definitions' log, where operators look for what happened to their definitions. */
    private static final Logger log = LoggerFactory.getLogger(JobDefinitions.class);

    /** How many times a definition is checked again when another one was stored while it was checked. */
    private static final int GRAPH_ATTEMPTS = 5;

    private final CuratorFramework client;
    private final FireSchedule schedule;
    private final Clock clock;

    /**
     * The budget of a defined job as its coordinators will judge it: a job defined at run time runs with the default
     * ledger retention and reconcile interval (the starter sets neither for it), and this client's packet size.
     */
    private final BudgetFigures budget;

    DefinitionStore(CuratorFramework client, FireSchedule schedule, Clock clock) {
        this.client = client;
        this.schedule = schedule;
        this.clock = clock;
        this.budget = new BudgetFigures(
                schedule,
                JobSetting.Defaults.LEDGER_RETENTION.plus(JobSetting.Defaults.RECONCILE_INTERVAL),
                clock,
                client);
    }

    void define(JobConfiguration configuration, String handler) throws Exception {
        String job = configuration.name();
        byte[] encoded = OperatorInputs.definition(configuration, handler, schedule);
        budget.refuseChange(null, configuration);
        byte[] history = new ScheduleHistory(
                        List.of(ScheduleHistory.Entry.of(clock.instant(), true, configuration, List.of())))
                .encode();
        JobNodes nodes = new JobNodes(job);
        if (client.checkExists().forPath(JobNodes.definition(job)) != null) {
            throw taken(job, "a job of this name is defined already (or being removed); remove it first");
        }
        if (client.checkExists().forPath(nodes.root()) != null) {
            throw taken(
                    job,
                    "a job of this name, declared in the code of some instance, has state in ZooKeeper under "
                            + nodes.root() + "; choose another name");
        }
        createQuietly(JobNodes.definitions());
        for (int attempt = 1; ; attempt++) {
            // The graph is checked against the definitions as of this version of their parent, and the definition is
            // stored only if no other was stored since: two definitions that close a cycle together cannot both pass.
            Stat definitions = new Stat();
            client.getData().storingStatIn(definitions).forPath(JobNodes.definitions());
            StoredJobs.refuseProblemsJoining(client, configuration);
            TransactionOp op = client.transactionOp();
            try {
                client.transaction()
                        .forOperations(
                                op.setData()
                                        .withVersion(definitions.getVersion())
                                        .forPath(JobNodes.definitions(), new byte[0]),
                                op.create().forPath(nodes.root()),
                                // Each with its size record: merged reads of them are sized from it.
                                op.create().forPath(nodes.sizes()),
                                op.create().forPath(nodes.size(nodes.config()), SizeRecord.of(encoded)),
                                op.create().forPath(nodes.size(nodes.history()), SizeRecord.of(history)),
                                op.create().forPath(nodes.config(), encoded),
                                op.create().forPath(nodes.history(), history),
                                op.create()
                                        .forPath(
                                                JobNodes.definition(job),
                                                new Definition(job, handler, false).encode()));
                break;
            } catch (KeeperException.NodeExistsException raced) {
                throw taken(job, "another instance defined a job of this name at the same time");
            } catch (KeeperException.BadVersionException otherDefinition) {
                if (attempt == GRAPH_ATTEMPTS) {
                    throw new IllegalStateException(
                            "Job '" + job + "': other jobs kept being defined meanwhile; define it again");
                }
            }
        }
        log.info("Job {}: defined at run time, handler '{}': {}", job, handler, configuration);
    }

    CompletableFuture<Void> remove(String jobName, Duration wait, Executor executor) throws Exception {
        String path = JobNodes.definition(jobName);
        byte[] data;
        try {
            data = client.getData().forPath(path);
        } catch (KeeperException.NoNodeException none) {
            throw noSuchJob("No job '" + jobName + "' is defined at run time", none);
        }
        Definition definition = Definition.decode(jobName, data);
        if (!definition.removing()) {
            client.setData().forPath(path, new Definition(jobName, definition.handler(), true).encode());
        }
        log.info("Job {}: removal started; every instance stops it", jobName);
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        RemovedJobState.delete(client, jobName, wait);
                        client.delete().quietly().forPath(path);
                        log.info("Job {}: removed, its state in ZooKeeper deleted", jobName);
                    } catch (Exception ex) {
                        throw new IllegalStateException(
                                "Job '" + jobName + "': the removal could not finish; remove it again", ex);
                    }
                },
                executor);
    }

    /** See {@link JobDefinitions#update}. */
    JobConfiguration update(String jobName, UnaryOperator<JobConfiguration> change) throws Exception {
        UnaryOperator<JobConfiguration> checked = current -> {
            JobConfiguration next = change.apply(current);
            // Only what the job follows, or its items, can change what the graph says.
            if (!JobGraph.Node.of(current).equals(JobGraph.Node.of(next))) {
                StoredJobs.refuseProblemsJoiningUnchecked(client, next);
            }
            return next;
        };
        // The job's catch-up horizon is its coordinators' setting, not known here: no entry is dropped by age.
        return storedOrNone(
                jobName,
                () -> StoredConfiguration.update(client, jobName, checked, schedule, clock, null, budget::refuseChange)
                        .configuration());
    }

    /** What reads or changes a job's stored configuration found; a {@link NoSuchElementException} when it has none. */
    static JobConfiguration storedOrNone(String jobName, Callable<JobConfiguration> read) throws Exception {
        try {
            return read.call();
        } catch (KeeperException.NoNodeException none) {
            throw noSuchJob("No job '" + jobName + "' is stored in ZooKeeper", none);
        }
    }

    private void createQuietly(String path) throws Exception {
        try {
            client.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException exists) {
            // Made by another definition first.
        }
    }

    private static NoSuchElementException noSuchJob(String message, Exception cause) {
        NoSuchElementException none = new NoSuchElementException(message);
        none.initCause(cause);
        return none;
    }

    private static JobConfigurationException taken(String job, String problem) {
        return new JobConfigurationException(job, "name", problem);
    }
}
