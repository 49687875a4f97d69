package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The fire ledger of one job in ZooKeeper: one persistent node per fire, one claim node per item of it. Whoever
 * creates an item's claim runs the item for that fire, so an item of a fire never runs twice, whatever the assignment,
 * the epoch or a late cache says. Every later write to a claim is a {@code setData} at the version its writer holds, so
 * an owner that lost the claim (taken over after its session ended) cannot overwrite the new owner's state.
 *
 * <p>Writes are grouped: the claims of one fire are created in one multi-operation, and claims that end together are
 * updated in one, each split so that a request stays far below ZooKeeper's 1 MB {@code jute.maxbuffer}. Reads of many
 * nodes go in one read-only multi. The ledger is read only by audits and the leader's retention, never watched or
 * cached: it grows with fires and items.
 *
 * <p>This class talks to the session's {@link ZooKeeper} handle directly, through {@link ClientRequests} (Curator's
 * transactions return no {@link Stat} for a create, and the fencing token is the claim's {@code mzxid}), so it does not
 * retry: a connection loss surfaces as an exception, and whether the write happened is found out by reading the claim
 * again (a claim that names this session is this session's, see {@link TakeOverRule#strandedOwn}). This class writes;
 * what it reads is in {@link LedgerReads}.
 *
 * <p>Race windows: a claim read as an orphan may be taken over by two instances at once; the versioned write lets one
 * win. A fire being retired while a late make-up claims one of its items fails the deletion (the node is not empty)
 * or, the other way round, re-creates the fire node for that one claim; either way the claim decides.
 */
public final class FireLedger {

    private final ClientRequests requests;

    private final LedgerReads reads;

    private final JobNodes nodes;

    /** Fires whose node this instance created or found, so that its next claims in them skip creating it. */
    private final KnownFires knownFires = new KnownFires();

    private final ClaimMulti multi;

    private final LedgerRetirement retirement;

    private final ManualFireRecords manualFires;

    private final FireReruns reruns;

    private final ChainRecords chains;

    private final ItemWiseRecords itemWise;

    private final AwaitedUpstreams awaited;

    public FireLedger(CuratorFramework client, JobNodes nodes) {
        this.requests = new ClientRequests(client, "Ledger");
        this.reads = new LedgerReads(requests, nodes);
        this.nodes = nodes;
        this.multi = new ClaimMulti(requests, reads, nodes, knownFires);
        this.retirement = new LedgerRetirement(requests, nodes, knownFires);
        this.manualFires = new ManualFireRecords(requests, nodes, knownFires);
        this.reruns = new FireReruns(requests, reads, nodes);
        this.itemWise = new ItemWiseRecords(requests, JobNodes.name(nodes.root()));
        this.awaited = new AwaitedUpstreams(requests, nodes);
        this.chains = new ChainRecords(requests, nodes, JobNodes.name(nodes.root()), itemWise);
    }

    /** How an operator's re-run of a past fire's failed items is recorded and announced: see {@link FireReruns}. */
    public FireReruns reruns() {
        return reruns;
    }

    /** How an operator's fires are recorded, announced and read back: see {@link ManualFireRecords}. */
    public ManualFireRecords manualFires() {
        return manualFires;
    }

    /**
     * What a claim attempt came to.
     *
     * @param won the claims this session created, with their version and fencing token
     * @param lost the items another claim already covered, with that claim as read
     */
    public record Claimed(Map<Integer, Claim> won, Map<Integer, Claim> lost) {}

    /**
     * Creates the claims of one fire, in as few multi-operations as their size allows.
     *
     * @param claims new claims ({@link Claim#first}) of one fire
     */
    public Claimed claim(Instant fireTime, List<Claim> claims) throws Exception {
        return ClientRequests.await(claimAsync(fireTime, claims));
    }

    /**
     * {@link #claim(Instant, List)}, with those created with their starts made so only under the assignment they were
     * decided under ({@link AssignmentGuard}): once a newer one was written, they are created reserved.
     *
     * @param assignmentVersion the version of the assignment node the claims were decided under; -1 when unknown
     */
    public Claimed claim(Instant fireTime, List<Claim> claims, int assignmentVersion) throws Exception {
        return ClientRequests.await(commitAsync(
                        List.of(), fireTime, claims, FireNodes.AS_NEEDED, AssignmentGuard.ofCreates(assignmentVersion))
                .thenApply(Committed::claimed));
    }

    /** {@link #claim}, without waiting: completes on ZooKeeper's event thread. */
    public CompletableFuture<Claimed> claimAsync(Instant fireTime, List<Claim> claims) {
        return commitAsync(List.of(), fireTime, claims).thenApply(Committed::claimed);
    }

    /**
     * What a group of owner writes came to.
     *
     * @param written the claims as now stored, with their new versions
     * @param lost the claims whose write was refused because they are no longer this writer's (taken over, retired)
     */
    public record Written(List<Claim> written, List<Claim> lost, List<Claim> moved) {

        public Written(List<Claim> written, List<Claim> lost) {
            this(written, lost, List.of());
        }
    }

    /** Writes each claim as given at the version it holds, in one multi-operation per batch: a group commit. */
    public Written update(List<Claim> claims) throws Exception {
        return ClientRequests.await(commitAsync(claims, Instant.EPOCH, List.of()))
                .written();
    }

    /**
     * What a commit came to: its owner writes, and its new claims.
     */
    public record Committed(Written written, Claimed claimed) {}

    /**
     * Owner writes and new claims of one fire together, in one multi-operation when their size allows (else in as few
     * as it does): how the ends of a fire and the claims of the next one cost one request. The middle of the ledger's
     * three write layers: {@link GroupCommit} queues writes and decides when to send them, this splits what is sent
     * into requests ({@link ByteBatches}), and {@link ClaimMulti} sends one and settles its refusals. Does not wait: the answers
     * are handled on ZooKeeper's event thread, so what the caller chains on the result must not block, or must move to
     * an executor of its own.
     *
     * @param writes owner writes, each at the version its claim holds
     * @param fireTime the fire of the new claims
     * @param creates new claims ({@link Claim#first}) of that fire
     */
    public CompletableFuture<Committed> commitAsync(List<Claim> writes, Instant fireTime, List<Claim> creates) {
        return commitAsync(writes, fireTime, creates, FireNodes.AS_NEEDED);
    }

    /** {@link #commitAsync(List, Instant, List)}, with the fire nodes treated as {@code fireNodes} says. */
    public CompletableFuture<Committed> commitAsync(
            List<Claim> writes, Instant fireTime, List<Claim> creates, FireNodes fireNodes) {
        return commitAsync(writes, fireTime, creates, fireNodes, AssignmentGuard.NONE);
    }

    /**
     * {@link #commitAsync(List, Instant, List, FireNodes)}, with the writes {@code guard} covers made only under the
     * assignment they were decided under; those refused for it come back as {@link Written#moved()}. The claims created
     * with their starts are checked against it too (without a guard, they are created reserved: see {@link
     * AssignmentGuard}).
     */
    public CompletableFuture<Committed> commitAsync(
            List<Claim> writes, Instant fireTime, List<Claim> creates, FireNodes fireNodes, AssignmentGuard guard) {
        ClaimMulti.Outcome outcome = new ClaimMulti.Outcome();
        CompletableFuture<ClaimMulti.Outcome> sent = CompletableFuture.completedFuture(outcome);
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
            FireNodes nodesOfBatch = request == requests.size() - 1 ? fireNodes : fireNodes.without();
            sent = then(sent, Pending.claims(batch, false), fireTime, Pending.claims(batch, true), nodesOfBatch, guard);
        }
        return sent.thenApply(done -> new Committed(
                new Written(done.written(), done.lost(), done.moved()), new Claimed(done.won(), done.taken())));
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

    /** The next batch, once the ones before it were answered. */
    private CompletableFuture<ClaimMulti.Outcome> then(
            CompletableFuture<ClaimMulti.Outcome> before,
            List<Claim> writes,
            Instant fireTime,
            List<Claim> creates,
            FireNodes fireNodes,
            AssignmentGuard guard) {
        return before.thenCompose(outcome -> multi.send(writes, fireTime, creates, fireNodes, guard, outcome));
    }

    /**
     * Takes an orphan over: rewrites it for this session at the version it was read with. Of several instances taking
     * the same orphan over, exactly one succeeds. Completes on ZooKeeper's event thread.
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
     * Writes a fire's note at the version it was read with: how the instances agree on who calls the completion
     * listener. The fire's origin, read with the note, is written again with it. Completes on ZooKeeper's event thread.
     *
     * @return whether this write won
     */
    public CompletableFuture<Boolean> writeNoteAsync(Instant fireTime, String note, FireOrigin origin, int version) {
        String path = requests.full(nodes.ledgerFire(fireTime));
        byte[] data = origin.withNote(note);
        return requests.multiAsync("SetData", List.of(Op.setData(path, data, version)))
                .thenApply(answer -> {
                    if (answer.ok() || lostRace(answer.code())) {
                        return answer.ok();
                    }
                    throw ClientRequests.refused(answer.code(), path);
                });
    }

    /**
     * Writes a fire's note at the version it was read with, and records the fire's completion in the jobs that follow
     * this one, in the same request ({@link ChainRecords}). Completes on ZooKeeper's event thread.
     *
     * @param dueCount how many of the fire's items were due
     * @return whether this write won
     */
    public CompletableFuture<Boolean> writeCompletionAsync(
            FireView fire, int dueCount, String note, List<io.shardingjob.core.internal.registry.Follower> followers) {
        return chains.writeNoteAsync(fire, dueCount, note, followers);
    }

    /**
     * Records an item-wise follower's items from the ends of this job's items, as soon as they are recorded
     * ({@link ItemWiseRecords}): completes on ZooKeeper's event thread.
     *
     * @param ended the claims of items of one fire as their ends were recorded
     */
    public CompletableFuture<Void> recordItemWiseAsync(
            Instant fireTime, Collection<Claim> ended, io.shardingjob.core.internal.registry.Follower follower) {
        Map<Integer, Claim> claims = new java.util.TreeMap<>();
        ended.forEach(claim -> claims.put(claim.item(), claim));
        Instant at = ended.stream()
                .map(Claim::ended)
                .filter(java.util.Objects::nonNull)
                .max(Instant::compareTo)
                .orElse(fireTime);
        return itemWise.recordAsync(new FireView(fireTime, claims), claims.keySet(), false, follower, at);
    }

    /**
     * The fires as read, those that wait for an upstream whose fire at their time can no longer complete given up
     * ({@link AwaitedUpstreams}): the keeper's pass asks. Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<List<FireView>> giveUpStaleAsync(List<FireView> views, Instant horizon) {
        return awaited.giveUpStaleAsync(views, horizon);
    }

    /** A versioned write that another writer's change, or the node's retirement, beat. */
    private static boolean lostRace(KeeperException.Code code) {
        return code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE;
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

    /** One claim as stored now, if it exists: completes on ZooKeeper's event thread. */
    public CompletableFuture<Optional<Claim>> readClaimAsync(Instant fireTime, int item) {
        return reads.readClaimAsync(fireTime, item);
    }

    /** Whether another session's run, as an audit saw it, is still running now; when unknown, it is. */
    public boolean stillRuns(Claim other) {
        try {
            return ClientRequests.await(reads.readClaimAsync(other.fireTime(), other.item()))
                    .filter(now -> now.state().isHeld() && now.sessionId() == other.sessionId())
                    .isPresent();
        } catch (Exception unreachable) {
            return true;
        }
    }

    /** The fires the ledger holds, oldest first. */
    public List<Instant> fires() throws Exception {
        return ClientRequests.await(reads.firesAsync());
    }

    /**
     * What an audit or the keeper reads first.
     *
     * @param watermark the fire every earlier fire is settled by, but for {@code stillOpen}, or the epoch when none is
     *     known
     * @param fires the fires the ledger holds, oldest first
     * @param stillOpen fires at or before the watermark that the keeper passed with a claim still open (a run older than
     *     the ledger's retention, an item that hangs): audits read them as they read the fires after the watermark, and
     *     they are never retired while they are listed; an operator's re-run lists its fire too ({@link FireReruns})
     * @param version the ledger node's data version as read, for the keeper's versioned writes; -1 when not read
     */
    public record Overview(Instant watermark, List<Instant> fires, SortedSet<Instant> stillOpen, int version) {

        public Overview {
            stillOpen = Collections.unmodifiableSortedSet(new TreeSet<>(stillOpen));
        }

        public Overview(Instant watermark, List<Instant> fires, SortedSet<Instant> stillOpen) {
            this(watermark, fires, stillOpen, -1);
        }

        public Overview(Instant watermark, List<Instant> fires) {
            this(watermark, fires, new TreeSet<>());
        }

        /** The fires an audit reads: the ones after the watermark up to {@code now}, and the ones still open. */
        public SortedSet<Instant> toRead(Instant now) {
            SortedSet<Instant> read = new TreeSet<>(stillOpen);
            fires.stream()
                    .filter(fireTime -> fireTime.isAfter(watermark) && !fireTime.isAfter(now))
                    .forEach(read::add);
            return read;
        }
    }

    /** The watermark and the fires, in one read-only multi-operation. */
    public Overview overview() throws Exception {
        return ClientRequests.await(overviewAsync());
    }

    /** {@link #overview}, without waiting: completes on ZooKeeper's event thread. */
    public CompletableFuture<Overview> overviewAsync() {
        String ledger = requests.full(nodes.ledger());
        return requests.multiAsync("Multi", List.of(Op.getData(ledger), Op.getChildren(ledger)))
                .thenApply(answer -> {
                    List<OpResult> results = answer.results();
                    OpResult.GetDataResult data = results.get(0) instanceof OpResult.GetDataResult read ? read : null;
                    Watermark mark = Watermark.decode(data != null ? data.getData() : null);
                    List<Instant> fires = results.get(1) instanceof OpResult.GetChildrenResult children
                            ? children.getChildren().stream()
                                    .map(Long::parseLong)
                                    .sorted()
                                    .map(Instant::ofEpochMilli)
                                    .toList()
                            : List.of();
                    return new Overview(
                            mark.settled(),
                            fires,
                            mark.stillOpen(),
                            data != null ? data.getStat().getVersion() : -1);
                });
    }

    /**
     * Stores the watermark, with the fires at or before it whose claims are still open; only the leader writes it, and a
     * stale one only makes audits look further back. Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Void> setWatermarkAsync(Instant settledThrough, Collection<Instant> stillOpen) {
        return setWatermarkAsync(settledThrough, stillOpen, -1).thenAccept(version -> {});
    }

    /**
     * {@link #setWatermarkAsync(Instant, Collection)} at the ledger node's version read ({@link Overview#version()}):
     * an operator's re-run writes the node too (it lists its fire as still open), and a watermark computed before it
     * must not drop that fire.
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

    /** Every claim of the given fires, in two read-only multi-operations per few fires. Missing fires read empty. */
    public List<FireView> read(Collection<Instant> fireTimes) throws Exception {
        return ClientRequests.await(readAsync(fireTimes));
    }

    /** {@link #read}, without waiting: completes on ZooKeeper's event thread. */
    public CompletableFuture<List<FireView>> readAsync(Collection<Instant> fireTimes) {
        return reads.readAsync(fireTimes);
    }

    /**
     * The items that hold a claim in each of the given fires, by fire, without the claims themselves: a few listings in
     * one read-only multi-operation. Completes on ZooKeeper's event thread; missing fires list nothing.
     */
    public CompletableFuture<Map<Instant, List<Integer>>> itemsAsync(Collection<Instant> fireTimes) {
        return reads.itemsAsync(fireTimes);
    }

    /**
     * Deletes fires and their claims, several fires per multi-operation, without waiting: completes on ZooKeeper's
     * event thread. A fire that gained a claim since it was listed is left for the next pass (its deletion fails as not
     * empty).
     *
     * @param fires each fire with the items it holds a claim for
     * @return how many fires were deleted
     */
    public CompletableFuture<Integer> retireAsync(Map<Instant, ? extends Collection<Integer>> fires) {
        return retirement.retireAsync(fires, -1);
    }

    /**
     * {@link #retireAsync(Map)}, each request checking that the ledger node is still at {@code ledgerVersion}: an
     * operator's re-run written since (it reopens claims of a fire the keeper took for settled) makes it fail, and the
     * fire is left alone.
     */
    public CompletableFuture<Integer> retireAsync(
            Map<Instant, ? extends Collection<Integer>> fires, int ledgerVersion) {
        return retirement.retireAsync(fires, ledgerVersion);
    }

    /**
     * The sessions of the instances registered now, read from the server after a {@code sync}, never from a cache: a
     * cache that has not seen a registration yet would make that instance's claims look orphaned while it runs them.
     * An instance's registration is an ephemeral node, deleted by the server when its session ends, so its owner
     * session is live exactly while the node exists. Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Set<Long>> liveSessionsAsync() {
        return liveInstancesAsync().thenApply(live -> Set.copyOf(live.values()));
    }

    /**
     * Whether the job's reshard flag is up in ZooKeeper, read with the client's other jobs' reads of the moment (the
     * leader's periodic pass looks for it even when its cache shows none; a thousand jobs' looks cost a request).
     * Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Boolean> reshardFlaggedAsync() {
        return requests.multiAsync("Multi", List.of(Op.getData(requests.full(nodes.reshardNecessary()))))
                .thenApply(answer -> answer.results().get(0) instanceof OpResult.GetDataResult);
    }

    /** The instances registered now, each with the session that owns its registration, read as {@link #liveSessionsAsync}. */
    public CompletableFuture<Map<String, Long>> liveInstancesAsync() {
        return reads.liveInstancesAsync();
    }

    /**
     * How long ago the last request that proved this client's session through the ensemble's leader (a write or a
     * {@code sync}, never a ping or a read) was sent; null when none did yet.
     */
    public @Nullable Duration sinceSessionProven() {
        return requests.sinceProven();
    }

    /** Proves the session through the leader, with one {@code sync} that every job of the client shares. */
    public CompletableFuture<Void> proveSessionAsync() {
        return requests.proveAsync(requests.full(nodes.root()));
    }

    /** The id of the session this instance's claims name. */
    public long sessionId() throws Exception {
        return requests.zooKeeper().getSessionId();
    }
}
