package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.OperatorChanges;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireReruns;
import io.shardingjob.core.internal.ledger.RerunRule;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Instant;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator does to one job, from any instance: instances and items disabled or enabled, the count, the job's
 * disabled flag, a reshard request, a manual fire of every item, and a re-run of a past fire's failed items. Each change
 * is one write (or one versioned read-modify-write) that every instance sees through its cache. Each input is checked
 * by {@link OperatorInputs} before anything is written.
 */
public final class JobOperations {

    private static final Logger log = LoggerFactory.getLogger(JobOperations.class);
    private final JobRegistry registry;
    private final OperatorChanges changes;
    private final JobState state;
    private final ManualFires manualFires;
    private final FireReruns reruns;
    private final AuditDemand audits;
    private final DueFires dueFires;

    JobOperations(
            JobRegistry registry,
            OperatorChanges changes,
            JobState state,
            ManualFires manualFires,
            FireReruns reruns,
            AuditDemand audits,
            DueFires dueFires) {
        this.registry = registry;
        this.changes = changes;
        this.state = state;
        this.manualFires = manualFires;
        this.reruns = reruns;
        this.audits = audits;
        this.dueFires = dueFires;
    }

    public void requestReshard() {
        registry.sharding().requestReshard("requested on " + state.instanceId());
    }

    public void disableInstance(String id) {
        createQuietly(registry.nodes().disabledInstance(OperatorInputs.instanceId(state.jobName(), id)));
    }

    public void enableInstance(String id) {
        deleteQuietly(registry.nodes().disabledInstance(OperatorInputs.instanceId(state.jobName(), id)));
    }

    /**
     * Disables an item: its owner skips it until it is enabled again, and its fires meanwhile are never made up (the
     * schedule history records the change with it).
     */
    public void disableItem(int item) {
        changes.updateDisabledItem(checkItem(item), true);
    }

    public void enableItem(int item) {
        changes.updateDisabledItem(checkItem(item), false);
    }

    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        OperatorInputs.shardingTotalCount(state.jobName(), shardingTotalCount);
        try {
            return changes.updateShardingTotalCount(shardingTotalCount);
        } catch (IllegalArgumentException ex) {
            // A JobConfigurationException or an InvalidOperationException: the input, not ZooKeeper.
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + state.jobName() + "': could not store the count", ex);
        }
    }

    public boolean updateDisabled(boolean disabled) {
        return changes.updateDisabled(disabled);
    }

    public Instant trigger(@Nullable String jobParameter) {
        OperatorInputs.jobParameter(state.jobName(), jobParameter);
        refuseUnlessRunsHere("fire it");
        return manualFires.trigger(jobParameter);
    }

    /**
     * Re-runs the failed items of one past fire, refused as {@code JobCoordinator#rerunFailed} says. The ledger reopens
     * their claims ({@link FireReruns}) and nothing here runs an item: each reopened claim is handed on, and its item's
     * current owner takes it over at its next audit (every instance audits when the re-run is announced, this one at
     * once) through the path every handed-on claim takes, so the run is the fire's own (its time, its job parameter,
     * its context), source {@code RETRY}, decided by the one "may it start now?" rule, and never beside another run of
     * the item.
     */
    public List<Integer> rerunFailed(Instant requested) {
        Instant fireTime = FireSchedule.fireTimeOf(requested);
        String job = state.jobName();
        refuseUnlessRunsHere("re-run a fire");
        if (fireTime.isBefore(dueFires.rule().start())) {
            // An earlier job's fire under the same name: its audits never read it.
            throw notInLedger(job, fireTime);
        }
        RerunRule.Verdict verdict;
        try {
            verdict = reruns.reopen(fireTime, state::now);
        } catch (IllegalStateException changing) {
            throw new IllegalStateException("Job '" + job + "': " + changing.getMessage(), changing);
        } catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new RegistryUnavailableException("Job '" + job + "': could not re-run the fire at " + fireTime, ex);
        }
        if (verdict instanceof RerunRule.Refused refused) {
            throw switch (refused.reason()) {
                case NOT_DUE_YET ->
                    new InvalidOperationException(
                            job, "fireTime", fireTime + " is still to come: nothing of that fire ran");
                case NOT_IN_LEDGER -> notInLedger(job, fireTime);
                case NO_FAILURE ->
                    new InvalidOperationException(
                            job, "fireTime", "no item of the fire at " + fireTime + " failed: nothing to re-run");
                case RUNNING ->
                    new IllegalStateException("Job '" + job + "': items " + refused.items()
                            + " of the fire at " + fireTime + " are running or waiting to run, and none failed:"
                            + " re-run it once they ended");
            };
        }
        List<Integer> items = ((RerunRule.Reopen) verdict).items();
        log.info("Job {}: items {} of the fire at {} reopened to run again (RETRY)", job, items, fireTime);
        audits.soon();
        return items;
    }

    /** A fire or a re-run is asked of an instance that runs the job, and of a job that is enabled. */
    private void refuseUnlessRunsHere(String what) {
        if (!state.isStarted()) {
            throw new IllegalStateException("Job '" + state.jobName() + "' is not running on this instance");
        }
        if (state.configuration().disabled()) {
            throw new IllegalStateException("Job '" + state.jobName() + "' is disabled: enable it to " + what);
        }
    }

    private static InvalidOperationException notInLedger(String job, Instant fireTime) {
        return new InvalidOperationException(
                job,
                "fireTime",
                "the ledger holds no fire at " + fireTime
                        + ": it was retired after the ledger's retention (ledgerRetention), or never fired");
    }

    private int checkItem(int item) {
        // With dynamic sharding the items are those of the assignment, not of the configured count.
        int total = registry.configurations().effective().dynamicSharding()
                ? registry.sharding().currentAssignment().shardingTotalCount()
                : registry.configurations().effective().shardingTotalCount();
        return OperatorInputs.item(state.jobName(), item, total);
    }

    private void createQuietly(String path) {
        try {
            registry.client().create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException exists) {
            // Already disabled.
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + state.jobName() + "': could not create " + path, ex);
        }
    }

    private void deleteQuietly(String path) {
        try {
            registry.client().delete().quietly().forPath(path);
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + state.jobName() + "': could not delete " + path, ex);
        }
    }
}
