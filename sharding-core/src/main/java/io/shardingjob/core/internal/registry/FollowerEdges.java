package io.shardingjob.core.internal.registry;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
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
     *
     * @param readEarlier the upstreams registered before, as a read sent earlier found them
     *     ({@link #registeredUpstreamsAsync}); null to read them now
     */
    public static void register(
            CuratorFramework client, JobConfiguration configuration, @Nullable List<String> readEarlier)
            throws Exception {
        JobNodes own = new JobNodes(configuration.name());
        List<String> before = readEarlier != null ? readEarlier : registeredUpstreams(client, own);
        byte[] edge = Follower.of(configuration).encode();
        for (String upstream : configuration.after()) {
            put(client, new JobNodes(upstream).follower(configuration.name()), edge);
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
            put(client, own.upstreams(), String.join(",", configuration.after()).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void put(CuratorFramework client, String path, byte[] data) throws Exception {
        try {
            client.create().creatingParentsIfNeeded().forPath(path, data);
        } catch (KeeperException.NodeExistsException exists) {
            client.setData().forPath(path, data);
        }
    }

    public static void unregister(CuratorFramework client, String jobName) throws Exception {
        for (String upstream : registeredUpstreams(client, new JobNodes(jobName))) {
            client.delete().quietly().forPath(new JobNodes(upstream).follower(jobName));
        }
    }

    /**
     * The upstreams the job registered with, read in the client's merged multis: a job's start sends it with its
     * structure's read, so that the two share a round trip.
     */
    public static CompletableFuture<List<String>> registeredUpstreamsAsync(CuratorFramework client, JobNodes own) {
        ClientRequests requests = new ClientRequests(client, "Followers");
        List<Op> read = List.of(Op.getData(requests.full(own.upstreams())));
        return requests.readAsync("Read", read, ClientRequests.SMALL_LISTING_BYTES, ClientRequests.READ_DATA_BYTES)
                .thenApply(answer -> {
                    OpResult result = answer.results().get(0);
                    if (result instanceof OpResult.GetDataResult found) {
                        return JobConfigurationCodec.names(new String(found.getData(), StandardCharsets.UTF_8));
                    }
                    if (MultiAnswer.isMissing(result)) {
                        return List.of();
                    }
                    throw ClientRequests.refused(MultiAnswer.codeOf(result), own.upstreams());
                });
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
        return cache.children(nodes.followers()).stream()
                .flatMap(job ->
                        Follower.decode(job, cache.data(nodes.follower(job)).orElse(null)).stream())
                .toList();
    }
}
