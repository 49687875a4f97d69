package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * What the leader's keeper writes: the ledger node's watermark (every fire before it settled, but the ones it lists
 * still open), and the retirement of old fires. Only the leader writes either; a stale watermark only makes audits look
 * further back.
 */
final class KeeperWrites {

    /** What a delete operation adds to a request besides its path: its type, version and framing. */
    private static final int DELETE_OVERHEAD_BYTES = 16;

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final KnownFires knownFires;

    KeeperWrites(ClientRequests requests, JobNodes nodes, KnownFires knownFires) {
        this.requests = requests;
        this.nodes = nodes;
        this.knownFires = knownFires;
    }

    /**
     * Deletes fires and their claims, several fires per multi-operation, without waiting: completes on ZooKeeper's
     * event thread. A fire that gained a claim since it was listed fails its batch, whose other fires are then deleted
     * one by one; it is left for the next pass. Each request checks that the ledger node is still at {@code
     * ledgerVersion} (-1: unchecked): an operator's re-run written since reopens claims of a fire the keeper took for
     * settled, and then nothing is deleted.
     *
     * @param fires each fire with the items it holds a claim for
     * @return how many fires were deleted
     */
    public CompletableFuture<Integer> retireAsync(
            Map<Instant, ? extends Collection<Integer>> fires, int ledgerVersion) {
        List<FireDeletes> all = fires.entrySet().stream()
                .map(fire -> deletes(fire.getKey(), fire.getValue()))
                .toList();
        // A deletion is little more than its path: several fires of a thousand items go in one request.
        return inTurn(ByteBatches.split(all, FireDeletes::bytes), ledgerVersion);
    }

    /** The deletions of one fire: its claims, then its node. */
    private record FireDeletes(Instant fireTime, List<Op> ops) {

        int bytes() {
            return ops.stream()
                    .mapToInt(delete -> delete.getPath().length() + DELETE_OVERHEAD_BYTES)
                    .sum();
        }
    }

    private FireDeletes deletes(Instant fireTime, Collection<Integer> items) {
        List<Op> ops = new ArrayList<>(items.size() + 1);
        items.forEach(item -> ops.add(Op.delete(requests.full(nodes.claim(fireTime, item)), -1)));
        ops.add(Op.delete(requests.full(nodes.ledgerFire(fireTime)), -1));
        return new FireDeletes(fireTime, ops);
    }

    /** Sends one request per batch, each after the one before; completes with how many fires they deleted. */
    private CompletableFuture<Integer> inTurn(List<List<FireDeletes>> batches, int ledgerVersion) {
        CompletableFuture<Integer> retired = CompletableFuture.completedFuture(0);
        for (List<FireDeletes> batch : batches) {
            retired = retired.thenCompose(
                    sofar -> deleteBatch(batch, ledgerVersion).thenApply(more -> sofar + more));
        }
        return retired;
    }

    private CompletableFuture<Integer> deleteBatch(List<FireDeletes> batch, int ledgerVersion) {
        List<Op> ops = new ArrayList<>();
        if (ledgerVersion >= 0) {
            ops.add(Op.check(requests.full(nodes.ledger()), ledgerVersion));
        }
        batch.forEach(fire -> ops.addAll(fire.ops()));
        return requests.multiAsync("Multi", ops).thenCompose(answer -> {
            if (answer.ok()) {
                batch.forEach(fire -> knownFires.remove(fire.fireTime()));
                return CompletableFuture.completedFuture(batch.size());
            }
            if (batch.size() == 1 || (ledgerVersion >= 0 && answer.failedAt() == 0)) {
                // One fire, or the ledger node changed (a re-run): the next pass decides again.
                return CompletableFuture.completedFuture(0);
            }
            // One fire changed since it was listed: delete the others one by one.
            return inTurn(batch.stream().map(List::of).toList(), ledgerVersion);
        });
    }

    /**
     * Stores the watermark and its still-open fires at the ledger node's version read ({@link
     * LedgerOverview#version()}): an operator's re-run writes the node too (it lists its fire as still open), and a
     * watermark computed before it must not drop that fire. Completes on ZooKeeper's event thread.
     *
     * @param version the version read, or -1 for any
     * @return the node's version after the write, or -1 when the node changed since it was read
     */
    public CompletableFuture<Integer> setWatermarkAsync(
            Instant settledThrough, Collection<Instant> stillOpen, int version) {
        String path = requests.full(nodes.ledger());
        byte[] data = new Watermark(settledThrough, stillOpen).encode();
        return requests.multiAsync("SetData", List.of(Op.setData(path, data, version)))
                .thenApply(answer -> {
                    if (answer.ok() && answer.results().get(0) instanceof OpResult.SetDataResult written) {
                        return written.getStat().getVersion();
                    }
                    if (answer.code() == KeeperException.Code.BADVERSION) {
                        return -1;
                    }
                    throw ClientRequests.refused(answer.code(), path);
                });
    }
}
