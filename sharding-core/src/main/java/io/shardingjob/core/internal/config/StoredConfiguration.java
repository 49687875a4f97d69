package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.operation.OperatorInputs;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Changes a job's stored configuration, the one every instance applies: read, change, write at the version read, and
 * again on top of a concurrent change, so that a change of one setting never loses another's. Every change of a stored
 * configuration goes through here, and is checked by {@link OperatorInputs#configurationChange} before it is written.
 */
public final class StoredConfiguration {

    private static final int ATTEMPTS = 5;

    private StoredConfiguration() {}

    /**
     * What a change came to.
     *
     * @param configuration the configuration stored now
     * @param changed whether the change stored anything; false when it left the configuration as it was
     */
    public record Update(JobConfiguration configuration, boolean changed) {}

    /**
     * The job's configuration as stored now.
     *
     * @throws KeeperException.NoNodeException when the job has no stored configuration
     */
    public static JobConfiguration read(CuratorFramework client, String jobName) throws Exception {
        return JobConfigurationCodec.decode(jobName, client.getData().forPath(new JobNodes(jobName).config()));
    }

    /** A change that leaves the cron as it is: see {@link #update(CuratorFramework, String, UnaryOperator, FireSchedule)}. */
    public static Update update(CuratorFramework client, String jobName, UnaryOperator<JobConfiguration> change)
            throws Exception {
        return update(client, jobName, change, FireSchedule.NONE);
    }

    /**
     * @param change the new configuration from the stored one; it is validated as it is built
     * @param schedule reads a changed cron as the program's trigger will
     * @throws io.shardingjob.core.config.JobConfigurationException when the changed configuration is invalid: nothing
     *     is stored
     * @throws io.shardingjob.core.operation.InvalidOperationException when what changed breaks a limit of
     *     {@link OperatorInputs}, or the cron cannot be read: nothing is stored
     * @throws KeeperException.NoNodeException when the job has no stored configuration
     * @throws IllegalStateException when the stored configuration kept changing under the change
     */
    public static Update update(
            CuratorFramework client, String jobName, UnaryOperator<JobConfiguration> change, FireSchedule schedule)
            throws Exception {
        String path = new JobNodes(jobName).config();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Stat stat = new Stat();
            byte[] stored = client.getData().storingStatIn(stat).forPath(path);
            JobConfiguration current = JobConfigurationCodec.decode(jobName, stored);
            JobConfiguration next = change.apply(current);
            if (next.equals(current)) {
                return new Update(current, false);
            }
            byte[] encoded = OperatorInputs.configurationChange(current, next, schedule);
            try {
                client.setData().withVersion(stat.getVersion()).forPath(path, encoded);
                return new Update(next, true);
            } catch (KeeperException.BadVersionException raced) {
                // Another change landed in between; apply this one on top of it.
            }
        }
        throw new IllegalStateException("Job '" + jobName + "': the stored configuration kept changing");
    }
}
