package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationCodec;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.operation.OperatorInputs;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job configuration every instance agrees on in {@code /{job}/config}.
 *
 * <p>The rule at start-up, logged every time it matters:
 *
 * <ul>
 *   <li>nothing stored yet: the local configuration is stored;
 *   <li>{@code overwrite=true}: the local configuration replaces the stored one, and each changed property is logged;
 *   <li>{@code overwrite=false} (the default): the stored configuration wins, and each local value it overrides is
 *       logged as a warning with the hint to set {@code overwrite=true}, so that an edit is never silently ignored.
 * </ul>
 *
 * <p>After start-up the stored configuration is the effective one: an operator's edit in ZooKeeper (a new count, say)
 * reaches every instance through its cache. A stored configuration that does not validate is refused with an error
 * log, and the last valid one stays in force.
 */
public final class JobConfigurationService {

    private static final Logger log = LoggerFactory.getLogger(JobConfigurationService.class);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final JobCache cache;

    private final JobConfiguration local;

    private volatile Effective effective;

    public JobConfigurationService(CuratorFramework client, JobNodes nodes, JobCache cache, JobConfiguration local) {
        this.client = client;
        this.nodes = nodes;
        this.cache = cache;
        this.local = local;
        this.effective = new Effective(-1, local);
    }

    /**
     * Applies the start-up rule and returns the configuration in force.
     *
     * @throws JobConfigurationException when the local configuration would be stored and is larger than one node of it
     *     may be ({@link OperatorInputs#MAX_CONFIGURATION_BYTES})
     */
    public JobConfiguration publish() throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            Stat stat = new Stat();
            byte[] stored;
            try {
                stored = client.getData().storingStatIn(stat).forPath(nodes.config());
            } catch (KeeperException.NoNodeException none) {
                try {
                    client.create().creatingParentsIfNeeded().forPath(nodes.config(), encodedLocal());
                    log.info("Job {}: stored its configuration in the registry: {}", local.name(), local);
                    return local;
                } catch (KeeperException.NodeExistsException raced) {
                    continue;
                }
            }
            Optional<JobConfiguration> decoded = decode(stored);
            List<String> differences =
                    decoded.map(local::differencesTo).orElse(List.of("(stored configuration is invalid)"));
            if (differences.isEmpty()) {
                return decoded.get();
            }
            if (local.overwrite() || decoded.isEmpty()) {
                try {
                    client.setData().withVersion(stat.getVersion()).forPath(nodes.config(), encodedLocal());
                } catch (KeeperException.BadVersionException raced) {
                    continue;
                }
                log.info(
                        "Job {}: the local configuration replaced the stored one (overwrite=true); changed {}",
                        local.name(),
                        differences);
                return local;
            }
            log.warn(
                    "Job {}: the configuration stored in ZooKeeper wins over the local one (overwrite=false);"
                            + " local -> stored values: {}. Set overwrite=true to make the local configuration win.",
                    local.name(),
                    differences);
            return decoded.get().toBuilder().overwrite(false).build();
        }
        throw new IllegalStateException("Job '" + local.name() + "': the stored configuration kept changing");
    }

    /** The configuration in force: the stored one, from the cache, or the last valid one. */
    public JobConfiguration effective() {
        Optional<ChildData> node = cache.node(nodes.config());
        Effective current = effective;
        if (node.isPresent() && node.get().getStat().getMzxid() != current.mzxid) {
            long mzxid = node.get().getStat().getMzxid();
            JobConfiguration next = decode(node.get().getData()).orElse(current.configuration);
            current = new Effective(mzxid, next);
            effective = current;
        }
        return current.configuration;
    }

    /**
     * Stores a new count; every instance's cache sees it and the leader reshards.
     *
     * @throws JobConfigurationException when the count is invalid for the stored item parameters
     */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) throws Exception {
        JobConfiguration stored = StoredConfiguration.update(
                        client,
                        local.name(),
                        current -> current.toBuilder()
                                .shardingTotalCount(shardingTotalCount)
                                .build())
                .configuration();
        log.info("Job {}: shardingTotalCount set to {}", local.name(), shardingTotalCount);
        return stored;
    }

    /**
     * Stores the configuration with the job's {@code disabled} flag set, at the version read, so that a concurrent
     * change of another property is not lost. Every instance sees it through its cache.
     *
     * @return whether the stored flag changed; false when it already had that value
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     * @throws IllegalStateException when the stored configuration kept changing
     */
    public boolean updateDisabled(boolean disabled) {
        try {
            return StoredConfiguration.update(
                            client,
                            local.name(),
                            current -> current.toBuilder().disabled(disabled).build())
                    .changed();
        } catch (IllegalStateException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException(
                    "Job '" + local.name() + "': could not store disabled=" + disabled, ex);
        }
    }

    /** The local configuration's stored form, within the size of one node; a start-up failure naming it otherwise. */
    private byte[] encodedLocal() {
        try {
            return OperatorInputs.encoded(local);
        } catch (InvalidOperationException tooLarge) {
            throw new JobConfigurationException(local.name(), tooLarge.input(), tooLarge.problem());
        }
    }

    private Optional<JobConfiguration> decode(byte[] stored) {
        try {
            return Optional.of(JobConfigurationCodec.decode(local.name(), stored));
        } catch (JobConfigurationException ex) {
            log.error(
                    "Job {}: ignoring the invalid configuration stored in ZooKeeper: {}",
                    local.name(),
                    ex.getMessage());
            return Optional.empty();
        }
    }

    private record Effective(long mzxid, JobConfiguration configuration) {}
}
