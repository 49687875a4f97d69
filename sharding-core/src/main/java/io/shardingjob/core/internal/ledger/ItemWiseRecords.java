package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.ChainRule.ItemRecord;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * The items of an item-wise follower's fire, recorded from its upstream's items: as soon as the upstream's item i ended
 * as the follower's {@code on} asks, the follower's item i of the same fire time gets a claim handed on (nobody's yet:
 * the owner of the item takes it over, as it takes over any handed-on claim, and runs it), and once the upstream fire
 * completed, the items that did not are recorded skipped. The follower's fire node is created with the first of them,
 * awaiting the upstream fire ({@link ChainRule#itemWiseAwaiting}), and is listed open when behind its watermark.
 *
 * <p>Every write is a {@code create}: an item recorded already is left alone, so the upstream instance that recorded
 * an item's end, and the completer of the fire after it (which records every item not recorded yet), may both try.
 * What another writer created between the read and the write fails the request, which is read and made again.
 */
public final class ItemWiseRecords {

    private static final int MAX_ATTEMPTS = 16;

    private final ClientRequests requests;
    private final String jobName;

    ItemWiseRecords(ClientRequests requests, String jobName) {
        this.requests = requests;
        this.jobName = jobName;
    }

    /**
     * Records the follower's items of {@code items} that the upstream fire's claims decide.
     *
     * @param upstream the upstream fire, with at least the claims of {@code items}
     * @param completed whether the upstream fire completed: its items that did not end as {@code on} asks are skipped
     * @param at when the upstream's items ended, as the follower's claims say
     */
    CompletableFuture<Void> recordAsync(
            FireView upstream, Collection<Integer> items, boolean completed, Follower follower, Instant at) {
        return attempt(upstream, Set.copyOf(items), completed, follower, at, 0);
    }

    private CompletableFuture<Void> attempt(
            FireView upstream, Set<Integer> items, boolean completed, Follower follower, Instant at, int attempt) {
        JobNodes theirs = new JobNodes(follower.job());
        Instant fireTime = upstream.fireTime();
        List<Op> reads = List.of(
                Op.getData(requests.full(theirs.ledgerFire(fireTime))),
                Op.getChildren(requests.full(theirs.ledgerFire(fireTime))),
                Op.getData(requests.full(theirs.ledger())),
                Op.getData(requests.full(theirs.rerun())),
                Op.getData(requests.full(new JobNodes(jobName).ledgerFire(fireTime))));
        return requests.multiAsync("Multi", reads).thenCompose(answer -> {
            List<OpResult> read = answer.results();
            if (!(read.get(2) instanceof OpResult.GetDataResult ledger)) {
                // The follower never started: it has no ledger to record in.
                return CompletableFuture.completedFuture(null);
            }
            Set<Integer> recorded = Set.copyOf(LedgerReads.items(read.get(1)));
            List<Op> ops = new ArrayList<>();
            boolean handsOn = false;
            for (int item : new TreeSet<>(items)) {
                ItemRecord record = ChainRule.itemWise(
                        follower.on(), upstream.claims().get(item), recorded.contains(item), completed);
                if (record != ItemRecord.NONE) {
                    Claim claim = ChainRule.itemClaim(record, item, fireTime, upstream.total(), at);
                    ops.add(requests.createPersistent(theirs.claim(fireTime, item), claim.encode()));
                    handsOn |= record == ItemRecord.HAND_ON;
                }
            }
            if (ops.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            if (!(read.get(0) instanceof OpResult.GetDataResult)) {
                // The upstream fire's own record says which chain it belongs to.
                String chain = read.get(4) instanceof OpResult.GetDataResult own
                        ? FireOrigin.read(own.getData()).origin().chainOr(jobName)
                        : jobName;
                ops.addAll(
                        0,
                        ChainRecords.createFollowerFire(
                                requests, theirs, fireTime, ChainRule.itemWiseAwaiting(jobName, chain), ledger));
            }
            if (handsOn && read.get(3) instanceof OpResult.GetDataResult) {
                // The follower's instances audit when this node changes: the owners of the handed-on items take them.
                ops.add(FireReruns.announce(requests, theirs, fireTime, true));
            }
            return send(ByteBatches.split(ops, ItemWiseRecords::bytes), 0).thenCompose(conflict -> {
                if (conflict == null) {
                    return CompletableFuture.completedFuture(null);
                }
                if (attempt + 1 < MAX_ATTEMPTS) {
                    return attempt(upstream, items, completed, follower, at, attempt + 1);
                }
                return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobName + ": the fire at "
                        + fireTime + " of " + follower.job() + " kept changing: " + conflict));
            });
        });
    }

    /**
     * What an operation adds to a request, as {@link ByteBatches} splits them: its path, the data it writes (a claim, a
     * fire's origin, the ledger node's watermark), and its own fields.
     */
    private static int bytes(Op op) {
        byte[] data = op.toRequestRecord() instanceof CreateRequest create
                ? create.getData()
                : op.toRequestRecord() instanceof SetDataRequest set ? set.getData() : new byte[0];
        return op.getPath().length() + data.length + 32;
    }

    /** Sends the requests in order; completes with the conflict that stopped them. */
    private CompletableFuture<KeeperException.Code> send(List<List<Op>> batches, int next) {
        if (next >= batches.size()) {
            return CompletableFuture.completedFuture(null);
        }
        List<Op> batch = batches.get(next);
        return requests.multiAsync("Multi", batch).thenCompose(answer -> {
            if (answer.ok()) {
                return send(batches, next + 1);
            }
            KeeperException.Code code = answer.refusal();
            if (ClaimWrites.raced(code)) {
                return CompletableFuture.completedFuture(code);
            }
            return CompletableFuture.failedFuture(ClientRequests.refused(
                    code, answer.refusedPath(batch, batch.get(0).getPath())));
        });
    }

    /**
     * Records an item-wise follower's items from the ends of this job's items of one fire, as soon as they are
     * recorded: completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Void> recordEndsAsync(Instant fireTime, Collection<Claim> ended, Follower follower) {
        Map<Integer, Claim> claims = new TreeMap<>();
        ended.forEach(claim -> claims.put(claim.item(), claim));
        return recordAsync(new FireView(fireTime, claims), claims.keySet(), false, follower, lastEnd(ended, fireTime));
    }

    /** When the last of these claims ended, as a follower's claims recorded from them say; the fire's time if none did. */
    static Instant lastEnd(Collection<Claim> claims, Instant fireTime) {
        return claims.stream()
                .map(Claim::ended)
                .filter(Objects::nonNull)
                .max(Instant::compareTo)
                .orElse(fireTime);
    }
}
