package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * The claims of one job's fire ledger, as written: one persistent node per fire, one claim node per item of it. Whoever
 * creates an item's claim runs the item for that fire, so an item of a fire never runs twice, whatever the assignment,
 * the epoch or a late cache says. Every later write to a claim is a {@code setData} at the version its writer holds, so
 * an owner that lost the claim (taken over after its session ended) cannot overwrite the new owner's state.
 *
 * <p>This class talks to the session's {@link org.apache.zookeeper.ZooKeeper} handle directly, through {@link
 * ClientRequests} (Curator's transactions return no {@link org.apache.zookeeper.data.Stat} for a create, and the fencing
 * token is the claim's {@code mzxid}), so it does not retry: a connection loss surfaces as an exception, and whether
 * the write happened is found out by reading the claim again (a claim that names this session is this session's, see
 * {@link TakeOverRule#strandedOwn}).
 *
 * <p>Race windows: a claim read as an orphan may be taken over by two instances at once; the versioned write lets one
 * win. A fire being retired while a late make-up claims one of its items fails the deletion (the node is not empty)
 * or, the other way round, re-creates the fire node for that one claim; either way the claim decides.
 */
public final class ClaimWrites {

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final KnownFires knownFires;
    private final ClaimMulti multi;

    ClaimWrites(ClientRequests requests, LedgerReads reads, JobNodes nodes, KnownFires knownFires) {
        this.requests = requests;
        this.nodes = nodes;
        this.knownFires = knownFires;
        this.multi = new ClaimMulti(requests, reads, nodes, knownFires);
    }

    /**
     * What a claim attempt came to: the claims this session created, with their version and fencing token, and the
     * items another claim already covered, with that claim as read.
     */
    public record Claimed(Map<Integer, Claim> won, Map<Integer, Claim> lost) {}

    /**
     * Creates the claims of one fire ({@link Claim#first}), in as few multi-operations as their size allows, without
     * waiting: completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Claimed> claimAsync(Instant fireTime, List<Claim> claims) {
        return commitAsync(List.of(), fireTime, claims).thenApply(Committed::claimed);
    }

    /**
     * What a group of owner writes came to: the claims as now stored, with their new versions; those refused because
     * they are no longer this writer's (taken over, retired); and the guarded ones refused because a newer assignment
     * was written than the one they were decided under ({@link AssignmentGuard}).
     */
    public record Written(List<Claim> written, List<Claim> lost, List<Claim> moved) {}

    /** What a commit came to: its owner writes, and its new claims. */
    public record Committed(Written written, Claimed claimed) {

        /** Nothing yet: each request of the commit adds what came of it as it is answered. */
        Committed() {
            this(
                    new Written(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()),
                    new Claimed(new TreeMap<>(), new TreeMap<>()));
        }
    }

    /**
     * Owner writes and new claims of one fire together, in one multi-operation when their size allows (else in as few
     * as it does): how the ends of a fire and the claims of the next one cost one request. The middle of the ledger's
     * three write layers: {@link GroupCommit} queues writes and decides when to send them, this splits what is sent
     * into requests ({@link ByteBatches}), and {@link ClaimMulti} makes one, sends it and settles its refusals. Does
     * not wait: the answers are handled on ZooKeeper's event thread, so what the caller chains on the result must not
     * block, or must move to an executor of its own.
     *
     * @param writes owner writes, each at the version its claim holds
     * @param creates new claims ({@link Claim#first}) of the fire at {@code fireTime}
     */
    public CompletableFuture<Committed> commitAsync(List<Claim> writes, Instant fireTime, List<Claim> creates) {
        return commitAsync(writes, fireTime, creates, FireNodes.AS_NEEDED, AssignmentGuard.NONE);
    }

    /**
     * {@link #commitAsync(List, Instant, List)}, with the fire nodes treated as {@code fireNodes} says, and the writes
     * {@code guard} covers made only under the assignment they were decided under; those refused for it come back as
     * {@link Written#moved()}. The claims created with their starts are checked against it too (without a guard, they
     * are created reserved: see {@link AssignmentGuard}).
     */
    public CompletableFuture<Committed> commitAsync(
            List<Claim> writes, Instant fireTime, List<Claim> creates, FireNodes fireNodes, AssignmentGuard guard) {
        CompletableFuture<Committed> sent = CompletableFuture.completedFuture(new Committed());
        List<Pending> pending = Stream.concat(
                        writes.stream().map(claim -> new Pending(claim, false)),
                        creates.stream().map(claim -> new Pending(claim, true)))
                .toList();
        List<List<Pending>> requests = ByteBatches.split(pending, each -> multi.bytes(each.claim()));
        if (requests.isEmpty() && fireNodes.createAhead() != null) {
            requests = List.of(List.of());
        }
        for (int request = 0; request < requests.size(); request++) {
            List<Pending> batch = requests.get(request);
            // The fire nodes go with the last request, after every claim written before them.
            FireNodes nodesOfBatch =
                    request == requests.size() - 1 ? fireNodes : new FireNodes(fireNodes.assumeExists(), null);
            sent = sent.thenCompose(sofar -> multi.request(
                            Pending.claims(batch, false),
                            fireTime,
                            Pending.claims(batch, true),
                            nodesOfBatch,
                            guard,
                            sofar)
                    .round());
        }
        return sent;
    }

    /** A claim to send: an owner's write, or a new claim to create. */
    private record Pending(Claim claim, boolean create) {

        static List<Claim> claims(List<Pending> batch, boolean created) {
            return batch.stream()
                    .filter(pending -> pending.create() == created)
                    .map(Pending::claim)
                    .toList();
        }
    }

    /**
     * Takes an orphan over: rewrites it for this session at the version it was read with, so that of several instances
     * taking it over exactly one succeeds. Completes on ZooKeeper's event thread.
     *
     * @return the claim now owned, with its new fencing token; empty when someone else changed it first
     */
    public CompletableFuture<Optional<Claim>> takeOverAsync(Claim orphan, Claim taken) {
        String path = requests.full(nodes.claim(orphan.fireTime(), orphan.item()));
        return requests.multiAsync("SetData", List.of(Op.setData(path, taken.encode(), orphan.version())))
                .thenApply(answer -> {
                    if (answer.ok() && answer.results().get(0) instanceof OpResult.SetDataResult written) {
                        return Optional.of(taken.written(written.getStat(), true));
                    }
                    if (lostRace(answer.code())) {
                        return Optional.empty();
                    }
                    throw ClientRequests.refused(answer.code(), path);
                });
    }

    /**
     * Creates a fire's node with no claim, so that every instance's audit sees that the fire was due even though no
     * owner claimed anything in it (all were cut off, or busy). Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Void> recordDueAsync(Instant fireTime) {
        String path = requests.full(nodes.ledgerFire(fireTime));
        return requests.multiAsync(
                        "Create", List.of(requests.createPersistent(nodes.ledgerFire(fireTime), new byte[0])))
                .thenAccept(answer -> {
                    // NODEEXISTS: someone claimed in it meanwhile.
                    if (!answer.ok() && answer.code() != KeeperException.Code.NODEEXISTS) {
                        throw ClientRequests.refused(answer.code(), path);
                    }
                    knownFires.add(fireTime);
                });
    }

    /** A versioned write that another writer's change, or the node's retirement, beat. */
    static boolean lostRace(KeeperException.Code code) {
        return code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE;
    }

    /** A request that another writer beat: a node it wrote changed or went, or one it creates came first. */
    static boolean raced(KeeperException.Code code) {
        return lostRace(code) || code == KeeperException.Code.NODEEXISTS;
    }
}
