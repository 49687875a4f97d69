package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.SizeRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * Changes a job's stored configuration, the one every instance applies: read, change, write at the version read, and
 * again on top of a concurrent change, so that a change of one setting never loses another's. Every change of a stored
 * configuration goes through here, is checked by {@link OperatorInputs#configurationChange} and by the writer's
 * limits (its coordination budget) before it is written, and
 * records what it changed of the job's schedule (its cron, whether it is enabled, its count) in the job's
 * {@link ScheduleHistory}, in the same multi-operation.
 */
public final class StoredConfiguration {

    private static final int ATTEMPTS = 5;

    private StoredConfiguration() {}

    /** What a change came to: the configuration stored now, and whether the change stored anything. */
    public record Update(JobConfiguration configuration, boolean changed) {}

    /** The job's configuration as stored now; {@link KeeperException.NoNodeException} when it has none. */
    public static JobConfiguration read(CuratorFramework client, String jobName) throws Exception {
        return JobConfigurationCodec.decode(jobName, client.getData().forPath(new JobNodes(jobName).config()));
    }

    /**
     * @param change the new configuration from the stored one; it is validated as it is built
     * @param schedule reads a changed cron as the program's trigger will
     * @param clock the time the change is recorded in the schedule history at
     * @param horizon history entries superseded longer ago than this are dropped: the job's catch-up horizon, or null
     *     for a writer that does not know it (it is each coordinator's setting), which then drops none by age, as the
     *     default could be shorter than the job's and leave its older fires to be judged by a later cron
     * @param limits refuses, by throwing, a change (from the stored configuration to the next) that would take the job
     *     past one of ZooKeeper's limits as the writer's figures judge them: its coordination budget
     * @throws io.shardingjob.core.config.JobConfigurationException when the changed configuration is invalid: nothing
     *     is stored
     * @throws io.shardingjob.core.operation.InvalidOperationException when what changed breaks a limit of
     *     {@link OperatorInputs} or of {@code limits}, or the cron cannot be read: nothing is stored
     * @throws KeeperException.NoNodeException when the job has no stored configuration
     * @throws IllegalStateException when the stored configuration kept changing under the change
     */
    public static Update update(
            CuratorFramework client,
            String jobName,
            UnaryOperator<JobConfiguration> change,
            FireSchedule schedule,
            Clock clock,
            @Nullable Duration horizon,
            BiConsumer<JobConfiguration, JobConfiguration> limits)
            throws Exception {
        JobNodes nodes = new JobNodes(jobName);
        String path = nodes.config();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Stat stat = new Stat();
            byte[] stored = client.getData().storingStatIn(stat).forPath(path);
            JobConfiguration current = JobConfigurationCodec.decode(jobName, stored);
            JobConfiguration next = change.apply(current);
            if (next.equals(current)) {
                return new Update(current, false);
            }
            byte[] encoded = OperatorInputs.configurationChange(current, next, schedule);
            limits.accept(current, next);
            ScheduleHistoryWrites.Read history = ScheduleHistoryWrites.read(client, nodes);
            List<Integer> disabledItems = ScheduleHistoryWrites.disabledItems(client, nodes);
            Instant now = clock.instant();
            ScheduleHistory recorded = history.next(
                    Entry.of(now, false, current, disabledItems),
                    Entry.of(now, false, next, disabledItems),
                    horizon == null ? Instant.MIN : now.minus(horizon));
            // A job no instance of this version started yet has no size records: its nodes are read alone till then.
            boolean sized = client.checkExists().forPath(nodes.sizes()) != null;
            if (replaced(client, nodes, stat.getVersion(), encoded, history, recorded, sized)) {
                return new Update(next, true);
            }
            // Another change landed in between; apply this one on top of it.
        }
        throw new IllegalStateException("Job '" + jobName + "': the stored configuration kept changing");
    }

    /**
     * Stores an encoded configuration at the version read, with the history that records the change (and their size
     * records, when the job has them): false when another change landed since the read.
     */
    static boolean replaced(
            CuratorFramework client,
            JobNodes nodes,
            int version,
            byte[] encoded,
            ScheduleHistoryWrites.Read history,
            ScheduleHistory recorded,
            boolean sized)
            throws Exception {
        List<CuratorOp> change = new ArrayList<>();
        if (sized) {
            change.add(SizeRecord.write(client, nodes.size(nodes.config()), encoded));
        }
        change.add(client.transactionOp().setData().withVersion(version).forPath(nodes.config(), encoded));
        return ScheduleHistoryWrites.commit(client, nodes, change, history, recorded, sized);
    }
}
