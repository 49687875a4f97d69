package io.shardingjob.core.internal.registry;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which jobs follow which, in ZooKeeper: a job that follows others registers itself under each of them
 * ({@code /{upstream}/followers/{job}}), so that whoever completes an upstream fire finds the followers to record in
 * the upstream's own cache. The follower's configuration is the one source of the edge: its instances write the edges
 * of the configuration in force at their start, and remove those of upstreams it no longer names, which they find in
 * their job's {@link JobNodes#upstreams()} node.
 */
public final class FollowerEdges {

    private static final Logger log = LoggerFactory.getLogger(FollowerEdges.class);

    private FollowerEdges() {}

    /**
     * Registers the job with every upstream its configuration names, and unregisters it from the ones it named before,
     * on a thread that may wait (the job's start). Idempotent: every instance of the job writes the same.
     */
    public static void register(CuratorFramework client, JobConfiguration configuration) throws Exception {
        JobNodes own = new JobNodes(configuration.name());
        List<String> before = registeredUpstreams(client, own);
        byte[] edge = Follower.of(configuration).encode();
        for (String upstream : configuration.after()) {
            String path = new JobNodes(upstream).follower(configuration.name());
            try {
                client.create().creatingParentsIfNeeded().forPath(path, edge);
            } catch (KeeperException.NodeExistsException exists) {
                client.setData().forPath(path, edge);
            }
        }
        for (String former : before) {
            if (!configuration.after().contains(former)) {
                try {
                    client.delete().forPath(new JobNodes(former).follower(configuration.name()));
                    log.info("Job {}: no longer follows {}", configuration.name(), former);
                } catch (KeeperException.NoNodeException gone) {
                    // Another instance unregistered it first.
                }
            }
        }
        if (!before.equals(configuration.after())) {
            byte[] names = String.join(",", configuration.after()).getBytes(StandardCharsets.UTF_8);
            try {
                client.create().creatingParentsIfNeeded().forPath(own.upstreams(), names);
            } catch (KeeperException.NodeExistsException exists) {
                client.setData().forPath(own.upstreams(), names);
            }
        }
    }

    /** Unregisters a job from every upstream it registered with: the job is being removed. */
    public static void unregister(CuratorFramework client, String jobName) throws Exception {
        for (String upstream : registeredUpstreams(client, new JobNodes(jobName))) {
            client.delete().quietly().forPath(new JobNodes(upstream).follower(jobName));
        }
    }

    private static List<String> registeredUpstreams(CuratorFramework client, JobNodes own) throws Exception {
        try {
            return JobConfigurationCodec.names(
                    new String(client.getData().forPath(own.upstreams()), StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        }
    }

    /** The jobs that follow this one, as the job's cache has them now. */
    public static List<Follower> followers(JobCache cache, JobNodes nodes) {
        List<Follower> followers = new ArrayList<>();
        for (String job : cache.children(nodes.followers())) {
            Optional<Follower> follower =
                    Follower.decode(job, cache.data(nodes.follower(job)).orElse(null));
            follower.ifPresent(followers::add);
        }
        return followers;
    }
}
