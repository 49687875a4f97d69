package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.config.OperatorChanges;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.List;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * What an operator changes in one job's registry, from any instance: instances and items disabled or enabled, the
 * count, the job's disabled flag, a reshard request; and the job's persistent nodes, created at start. Each change is
 * one write (or one versioned read-modify-write) that every instance sees through its cache. Each input is checked by
 * {@link OperatorInputs} before anything is written.
 */
final class JobOperations {

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final JobConfigurationService configurations;

    private final OperatorChanges changes;

    private final ShardingService sharding;

    private final String jobName;

    private final String instanceId;

    JobOperations(
            CuratorFramework client,
            JobNodes nodes,
            JobConfigurationService configurations,
            OperatorChanges changes,
            ShardingService sharding,
            String jobName,
            String instanceId) {
        this.client = client;
        this.nodes = nodes;
        this.configurations = configurations;
        this.changes = changes;
        this.sharding = sharding;
        this.jobName = jobName;
        this.instanceId = instanceId;
    }

    /** Asks the leader for a new assignment now. */
    void requestReshard() {
        sharding.requestReshard("requested on " + instanceId);
    }

    /** Disables an instance for this job: it leaves the election and gets no items. */
    void disableInstance(String id) {
        createQuietly(nodes.disabledInstance(OperatorInputs.instanceId(jobName, id)));
    }

    void enableInstance(String id) {
        deleteQuietly(nodes.disabledInstance(OperatorInputs.instanceId(jobName, id)));
    }

    /**
     * Disables an item: its owner skips it until it is enabled again, and its fires meanwhile are never made up (the
     * schedule history records the change with it).
     */
    void disableItem(int item) {
        changes.updateDisabledItem(checkItem(item), true);
    }

    void enableItem(int item) {
        changes.updateDisabledItem(checkItem(item), false);
    }

    /** Stores a new count; every instance sees it and the leader reshards to it. */
    JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        OperatorInputs.shardingTotalCount(jobName, shardingTotalCount);
        try {
            return changes.updateShardingTotalCount(shardingTotalCount);
        } catch (IllegalArgumentException ex) {
            // A JobConfigurationException or an InvalidOperationException: the input, not ZooKeeper.
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + jobName + "': could not store the count", ex);
        }
    }

    /** See {@link JobConfigurationService#updateDisabled(boolean)}. */
    boolean updateDisabled(boolean disabled) {
        return changes.updateDisabled(disabled);
    }

    /**
     * Creates the job's persistent nodes that are not there yet, with {@code along} in the same request when any are.
     *
     * @return whether {@code along} was written
     */
    boolean createStructure(Supplier<List<Op>> along) {
        return JobStructure.ensure(client, List.of(nodes), along);
    }

    private int checkItem(int item) {
        // With dynamic sharding the items are those of the assignment, not of the configured count.
        int total = configurations.effective().dynamicSharding()
                ? sharding.currentAssignment().shardingTotalCount()
                : configurations.effective().shardingTotalCount();
        return OperatorInputs.item(jobName, item, total);
    }

    private void createQuietly(String path) {
        try {
            client.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException exists) {
            // Already there: nothing to do.
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + jobName + "': could not create " + path, ex);
        }
    }

    private void deleteQuietly(String path) {
        try {
            client.delete().quietly().forPath(path);
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + jobName + "': could not delete " + path, ex);
        }
    }
}
