package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * Makes sure the persistent nodes of jobs ({@link JobNodes#structure()}) exist, in two requests however many jobs:
 * one multi of reads tells which are missing, one multi creates them, parents first. Path by path with
 * {@code creatingParentsIfNeeded} it took a request per node and per missing parent, about ten per job start.
 *
 * <p>Race window: another instance may create some of the nodes between the read and the create; the create multi then
 * fails as a whole with NodeExists, creating nothing, and the read is done again. Nothing else ever deletes these
 * nodes while a job of theirs runs.
 */
public final class JobStructure {

    private static final int ATTEMPTS = 5;

    private JobStructure() {}

    /**
     * Creates what is missing of the jobs' persistent nodes, waiting for ZooKeeper. When any are missing, {@code along}
     * (asked for once the structure's read is answered) goes in the same request as the first creates, as a job's first
     * start stores its configuration, one round trip fewer; refused as a whole with them, it is left to its caller.
     * Whether it was written.
     *
     * @throws RegistryUnavailableException when ZooKeeper did not answer, or the nodes kept being created by others
     */
    public static boolean ensure(CuratorFramework client, List<JobNodes> jobs, Supplier<List<Op>> along) {
        // Jobs share a parent or two (every ledger's): each is created once, a multi creating it twice would fail.
        Set<String> unique = new LinkedHashSet<>();
        jobs.forEach(job -> unique.addAll(job.structure()));
        List<String> paths = List.copyOf(unique);
        ClientRequests requests = new ClientRequests(client, "Structure");
        try {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                List<String> missing = missing(client, requests, paths);
                if (missing.isEmpty()) {
                    return false;
                }
                List<Op> with = attempt == 0 ? along.get() : List.of();
                Created created = created(client, requests, missing, with);
                if (created != Created.RACED) {
                    return created == Created.WITH_ALONG;
                }
            }
        } catch (RegistryUnavailableException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Could not create the nodes of " + names(jobs), ex);
        }
        throw new RegistryUnavailableException(
                "The nodes of " + names(jobs) + " kept being created by others while this instance created them");
    }

    /**
     * The paths that do not exist, in their order: read in multis of reads on the session's own handle (Curator's
     * transactions hold writes only), merged with the reads the client's other jobs send meanwhile (thousands of jobs
     * starting together read their nodes in a few requests), with Curator's retries. A read multi is answered op by op:
     * a missing node fails its own read only. A namespace not created yet reads as every node missing; the create
     * multi's Curator operations create it first.
     */
    private static List<String> missing(CuratorFramework client, ClientRequests requests, List<String> paths)
            throws Exception {
        List<String> missing = new ArrayList<>();
        for (List<String> chunk : ClientRequests.batches(paths, ClientRequests.MAX_OPS_PER_MULTI)) {
            List<Op> reads = chunk.stream()
                    .map(path -> (Op) Op.getData(requests.full(path)))
                    .toList();
            List<OpResult> results = RetryLoop.callWithRetry(
                    client.getZookeeperClient(),
                    () -> ClientRequests.await(requests.readAsync(
                                    "MultiRead",
                                    reads,
                                    ClientRequests.SMALL_LISTING_BYTES,
                                    ClientRequests.READ_DATA_BYTES))
                            .results());
            for (int i = 0; i < chunk.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult error) {
                    if (error.getErr() != KeeperException.Code.NONODE.intValue()) {
                        throw KeeperException.create(KeeperException.Code.get(error.getErr()), chunk.get(i));
                    }
                    missing.add(chunk.get(i));
                }
            }
        }
        return missing;
    }

    private enum Created {
        /** Another instance created one of the nodes meanwhile, or refused what went along: nothing was created. */
        RACED,
        /** The nodes were created, without what went along. */
        ALONE,
        /** The nodes were created, and what went along written with them. */
        WITH_ALONG
    }

    /**
     * Creates the missing nodes in multis, {@code along} after the last of them. Each goes in the client's merged
     * multis of writes, so thousands of jobs starting together create theirs in a few requests; a namespace not
     * created yet (the raw multi makes no parent) is made by Curator's transaction instead, without {@code along}.
     */
    private static Created created(
            CuratorFramework client, ClientRequests requests, List<String> missing, List<Op> along) throws Exception {
        List<List<String>> chunks = ClientRequests.batches(missing, ClientRequests.MAX_OPS_PER_MULTI);
        boolean alongWritten = false;
        for (int i = 0; i < chunks.size(); i++) {
            List<String> chunk = chunks.get(i);
            List<Op> creates = new ArrayList<>();
            chunk.forEach(path -> creates.add(requests.createPersistent(path, new byte[0])));
            boolean withAlong = i == chunks.size() - 1 && !along.isEmpty();
            if (withAlong) {
                creates.addAll(along);
            }
            MultiAnswer answer = RetryLoop.callWithRetry(
                    client.getZookeeperClient(), () -> ClientRequests.await(requests.multiAsync("Create", creates)));
            if (answer.ok()) {
                alongWritten = withAlong;
                continue;
            }
            KeeperException.Code code = answer.refusal();
            if (code == KeeperException.Code.NODEEXISTS || (withAlong && answer.failedAt() >= chunk.size())) {
                return Created.RACED;
            }
            if (code != KeeperException.Code.NONODE) {
                throw KeeperException.create(
                        code, answer.refusedPath(creates, creates.get(0).getPath()));
            }
            try {
                List<CuratorOp> withNamespace = new ArrayList<>();
                for (String path : chunk) {
                    withNamespace.add(client.transactionOp().create().forPath(path));
                }
                client.transaction().forOperations(withNamespace);
            } catch (KeeperException.NodeExistsException raced) {
                return Created.RACED;
            }
        }
        return alongWritten ? Created.WITH_ALONG : Created.ALONE;
    }

    private static String names(List<JobNodes> jobs) {
        return jobs.size() == 1 ? "job " + JobNodes.name(jobs.get(0).root()) : jobs.size() + " jobs";
    }
}
