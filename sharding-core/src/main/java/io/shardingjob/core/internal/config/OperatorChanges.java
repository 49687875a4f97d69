package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's changes of one job while it runs: its count, whether it is disabled, whether an item is. Each is
 * written with the job's {@link ScheduleHistory} entry in one multi-operation, at the versions read, and made again on
 * top of a concurrent change; every instance sees it through its cache.
 */
public final class OperatorChanges {

    private static final Logger log = LoggerFactory.getLogger(OperatorChanges.class);
    private final CuratorFramework client;
    private final JobNodes nodes;
    private final String jobName;
    private final Clock clock;
    private final Duration horizon;
    private final BiConsumer<JobConfiguration, JobConfiguration> limits;

    /**
     * @param horizon how far back the schedule history must reach: the catch-up horizon
     * @param limits refuses a change (from the stored configuration to the next) that would take the job past one of
     *     ZooKeeper's limits, by throwing: the job's coordination budget
     */
    public OperatorChanges(
            CuratorFramework client,
            JobNodes nodes,
            String jobName,
            Clock clock,
            Duration horizon,
            BiConsumer<JobConfiguration, JobConfiguration> limits) {
        this.client = client;
        this.nodes = nodes;
        this.jobName = jobName;
        this.clock = clock;
        this.horizon = horizon;
        this.limits = limits;
    }

    /**
     * Stores a new count; every instance's cache sees it and the leader reshards.
     *
     * @throws JobConfigurationException when the count is invalid for the stored item parameters
     */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) throws Exception {
        JobConfiguration stored = update(current -> current.toBuilder()
                        .shardingTotalCount(shardingTotalCount)
                        .build())
                .configuration();
        log.info("Job {}: shardingTotalCount set to {}", jobName, shardingTotalCount);
        return stored;
    }

    /**
     * Sets the stored configuration's {@code disabled} flag: whether it changed.
     *
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     * @throws IllegalStateException when the stored configuration kept changing
     */
    public boolean updateDisabled(boolean disabled) {
        return unlessUnavailable(
                "disabled=" + disabled,
                () -> update(current -> current.toBuilder().disabled(disabled).build())
                        .changed());
    }

    private StoredConfiguration.Update update(UnaryOperator<JobConfiguration> change) throws Exception {
        return StoredConfiguration.update(client, jobName, change, FireSchedule.NONE, clock, horizon, limits);
    }

    /**
     * Disables or enables an item (whether anything changed): creates or deletes {@code /{job}/disabled/items/{item}}
     * and records the job's disabled items from now on in its schedule history, in one multi-operation, so that the
     * item's fires while it was disabled are never made up.
     *
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     */
    public boolean updateDisabledItem(int item, boolean disabled) {
        return unlessUnavailable("item " + item + " disabled=" + disabled, () -> {
            for (int attempt = 0; attempt < 5; attempt++) {
                List<Integer> before = ScheduleHistoryWrites.disabledItems(client, nodes);
                if (before.contains(item) == disabled) {
                    return false;
                }
                List<Integer> after = new ArrayList<>(before);
                if (disabled) {
                    after.add(item);
                } else {
                    after.remove(Integer.valueOf(item));
                }
                JobConfiguration stored = StoredConfiguration.read(client, jobName);
                ScheduleHistoryWrites.Read history = ScheduleHistoryWrites.read(client, nodes);
                Instant now = clock.instant();
                ScheduleHistory recorded = history.next(
                        Entry.of(now, false, stored, before),
                        Entry.of(now, false, stored, after),
                        clock.instant().minus(horizon));
                CuratorOp change = disabled
                        ? client.transactionOp().create().forPath(nodes.disabledItem(item))
                        : client.transactionOp().delete().forPath(nodes.disabledItem(item));
                try {
                    if (ScheduleHistoryWrites.commit(client, nodes, List.of(change), history, recorded, true)) {
                        return true;
                    }
                } catch (KeeperException.NoNodeException changedMeanwhile) {
                    // The item, or the history, changed meanwhile: looked at again, as after a lost race.
                }
            }
            throw new IllegalStateException("Job '" + jobName + "': the disabled items kept changing");
        });
    }

    /** The change's answer; a failure of ZooKeeper as a {@link RegistryUnavailableException} naming what was stored. */
    private <T> T unlessUnavailable(String stored, Callable<T> change) {
        try {
            return change.call();
        } catch (IllegalStateException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + jobName + "': could not store " + stored, ex);
        }
    }
}
