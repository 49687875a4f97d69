package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * Which sessions are live, as a take-over must know it: read from the server after a {@code sync}, never from a cache,
 * since a cache that has not seen a registration yet would make that instance's claims look orphaned while it runs
 * them.
 */
public final class LiveSessions {

    private final ClientRequests requests;
    private final JobNodes nodes;

    LiveSessions(ClientRequests requests, JobNodes nodes) {
        this.requests = requests;
        this.nodes = nodes;
    }

    /**
     * The instances registered now, each with the session that owns its registration. A registration is an ephemeral
     * node, deleted by the server when its session ends, so its owner session is live exactly while the node exists.
     * Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Map<String, Long>> liveInstancesAsync() {
        String instances = requests.full(nodes.instances());
        return requests.syncAsync(instances)
                .thenCompose(synced -> requests.multiAsync("GetChildren", List.of(Op.getChildren(instances))))
                .thenCompose(listing -> {
                    if (!(listing.results().get(0) instanceof OpResult.GetChildrenResult children)) {
                        throw ClientRequests.refused(listing.code(), instances);
                    }
                    CompletableFuture<Map<String, Long>> live = CompletableFuture.completedFuture(new TreeMap<>());
                    for (List<String> chunk :
                            ClientRequests.batches(children.getChildren(), ClientRequests.MAX_OPS_PER_MULTI)) {
                        List<Op> reads = new ArrayList<>(chunk.size());
                        chunk.forEach(name -> reads.add(Op.getData(instances + "/" + name)));
                        live = live.thenCompose(sofar -> requests.multiAsync("Multi", reads)
                                .thenApply(answer -> {
                                    for (int i = 0; i < chunk.size(); i++) {
                                        if (answer.results().get(i) instanceof OpResult.GetDataResult data
                                                && data.getStat().getEphemeralOwner() != 0) {
                                            sofar.put(
                                                    chunk.get(i), data.getStat().getEphemeralOwner());
                                        }
                                    }
                                    return sofar;
                                }));
                    }
                    return live;
                });
    }
}
