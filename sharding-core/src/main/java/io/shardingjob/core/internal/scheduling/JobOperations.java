package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.OperatorChanges;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.scheduling.audit.Reruns;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Instant;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * What an operator does to one job, from any instance: instances and items disabled or enabled, the count, the job's
 * disabled flag, a reshard request, a manual fire of every item, and a re-run of a past fire's failed items. Each change
 * is one write (or one versioned read-modify-write) that every instance sees through its cache. Each input is checked
 * by {@link OperatorInputs} before anything is written.
 */
public final class JobOperations {

    private final JobRegistry registry;
    private final OperatorChanges changes;
    private final JobState state;
    private final ManualFires manualFires;
    private final Reruns reruns;

    JobOperations(
            JobRegistry registry, OperatorChanges changes, JobState state, ManualFires manualFires, Reruns reruns) {
        this.registry = registry;
        this.changes = changes;
        this.state = state;
        this.manualFires = manualFires;
        this.reruns = reruns;
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
        if (!state.isStarted()) {
            throw new IllegalStateException("Job '" + state.jobName() + "' is not running on this instance");
        }
        if (state.configuration().disabled()) {
            throw new IllegalStateException("Job '" + state.jobName() + "' is disabled: enable it to fire it");
        }
        return manualFires.trigger(jobParameter);
    }

    public List<Integer> rerunFailed(Instant fireTime) {
        return reruns.rerunFailed(FireSchedule.fireTimeOf(fireTime));
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
