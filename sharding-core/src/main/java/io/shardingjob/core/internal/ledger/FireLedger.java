package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

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
 * <p>This class talks to the session's {@link ZooKeeper} handle directly, through {@link LedgerRequests} (Curator's
 * transactions return no {@link Stat} for a create, and the fencing token is the claim's {@code mzxid}), so it does not
 * retry: a connection loss surfaces as an exception, and whether the write happened is found out by reading the claim
 * again (a claim that names this session is this session's, see {@link LedgerRules#strandedOwn}). This class writes;
 * what it reads is in {@link LedgerReads}.
 *
 * <p>Race windows: a claim read as an orphan may be taken over by two instances at once; the versioned write lets one
 * win. A fire being retired while a late make-up claims one of its items fails the deletion (the node is not empty)
 * or, the other way round, re-creates the fire node for that one claim; either way the claim decides.
 */
public final class FireLedger {

    private static final String WATERMARK_PREFIX = "settled=";

    private final LedgerRequests requests;

    private final LedgerReads reads;

    private final JobNodes nodes;

    /** Fires whose node this instance created or found, so that its next claims in them skip creating it. */
    private final Set<Long> knownFires = ConcurrentHashMap.newKeySet();

    private final LedgerCommit commits;

    public FireLedger(CuratorFramework client, JobNodes nodes) {
        this.requests = new LedgerRequests(client);
        this.reads = new LedgerReads(requests, nodes);
        this.nodes = nodes;
        this.commits = new LedgerCommit(requests, reads, nodes, knownFires);
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
        return commit(List.of(), fireTime, claims).claimed();
    }

    /**
     * What a group of owner writes came to.
     *
     * @param written the claims as now stored, with their new versions
     * @param lost the claims whose write was refused because they are no longer this writer's (taken over, retired)
     */
    public record Written(List<Claim> written, List<Claim> lost) {}

    /** Writes each claim as given at the version it holds, in one multi-operation per batch: a group commit. */
    public Written update(List<Claim> claims) throws Exception {
        return commit(claims, Instant.EPOCH, List.of()).written();
    }

    /**
     * What a commit came to: its owner writes, and its new claims.
     */
    public record Committed(Written written, Claimed claimed) {}

    /**
     * Owner writes and new claims of one fire together, in one multi-operation when their size allows (else in as few
     * as it does): how the ends of a fire and the claims of the next one cost one request. Waits for the answer.
     *
     * @param writes owner writes, each at the version its claim holds
     * @param fireTime the fire of the new claims
     * @param creates new claims ({@link Claim#first}) of that fire
     */
    public Committed commit(List<Claim> writes, Instant fireTime, List<Claim> creates) throws Exception {
        try {
            return commitAsync(writes, fireTime, creates).join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    /**
     * {@link #commit}, without waiting: the answers are handled on ZooKeeper's event thread, so what the caller chains
     * on the result must not block, or must move to an executor of its own.
     */
    public CompletableFuture<Committed> commitAsync(List<Claim> writes, Instant fireTime, List<Claim> creates) {
        LedgerCommit.Outcome outcome = new LedgerCommit.Outcome();
        CompletableFuture<LedgerCommit.Outcome> sent = CompletableFuture.completedFuture(outcome);
        List<Claim> batchWrites = new ArrayList<>();
        List<Claim> batchCreates = new ArrayList<>();
        int bytes = 0;
        for (Claim claim : writes) {
            int size = commits.bytes(claim);
            if (bytes + size > LedgerRequests.MAX_WRITE_BYTES && !batchWrites.isEmpty()) {
                sent = then(sent, batchWrites, fireTime, batchCreates);
                batchWrites = new ArrayList<>();
                bytes = 0;
            }
            batchWrites.add(claim);
            bytes += size;
        }
        for (Claim claim : creates) {
            int size = commits.bytes(claim);
            if (bytes + size > LedgerRequests.MAX_WRITE_BYTES && (!batchWrites.isEmpty() || !batchCreates.isEmpty())) {
                sent = then(sent, batchWrites, fireTime, batchCreates);
                batchWrites = new ArrayList<>();
                batchCreates = new ArrayList<>();
                bytes = 0;
            }
            batchCreates.add(claim);
            bytes += size;
        }
        if (!batchWrites.isEmpty() || !batchCreates.isEmpty()) {
            sent = then(sent, batchWrites, fireTime, batchCreates);
        }
        return sent.thenApply(
                done -> new Committed(new Written(done.written(), done.lost()), new Claimed(done.won(), done.taken())));
    }

    /** The next batch, once the ones before it were answered. */
    private CompletableFuture<LedgerCommit.Outcome> then(
            CompletableFuture<LedgerCommit.Outcome> before, List<Claim> writes, Instant fireTime, List<Claim> creates) {
        return before.thenCompose(outcome -> commits.send(writes, fireTime, creates, outcome));
    }

    /**
     * Takes an orphan over: rewrites it for this session at the version it was read with. Of several instances taking
     * the same orphan over, exactly one succeeds.
     *
     * @return the claim now owned, with its new fencing token; empty when someone else changed it first
     */
    public Optional<Claim> takeOver(Claim orphan, Claim taken) throws Exception {
        try {
            Stat stat = requests.send(
                    "SetData",
                    zooKeeper -> zooKeeper.setData(
                            requests.full(nodes.claim(orphan.fireTime(), orphan.item())),
                            taken.encode(),
                            orphan.version()));
            return Optional.of(taken.written(stat, true));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException lostRace) {
            return Optional.empty();
        }
    }

    /**
     * Writes a fire's note at the version it was read with: how the instances agree on who calls the completion
     * listener.
     *
     * @return whether this write won
     */
    public boolean writeNote(Instant fireTime, String note, int version) throws Exception {
        try {
            byte[] data = note.getBytes(StandardCharsets.UTF_8);
            requests.send(
                    "SetData",
                    zooKeeper -> zooKeeper.setData(requests.full(nodes.ledgerFire(fireTime)), data, version));
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException lostRace) {
            return false;
        }
    }

    /**
     * Creates a fire's node with no claim, so that every instance's audit sees that the fire was due even though no
     * owner claimed anything in it (all were cut off, or busy).
     */
    public void recordDue(Instant fireTime) throws Exception {
        try {
            requests.send(
                    "Create",
                    zooKeeper -> zooKeeper.create(
                            requests.full(nodes.ledgerFire(fireTime)),
                            new byte[0],
                            ZooDefs.Ids.OPEN_ACL_UNSAFE,
                            CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException already) {
            // Someone claimed in it meanwhile.
        }
        knownFires.add(fireTime.toEpochMilli());
    }

    /** One claim as stored now, if it exists. */
    public Optional<Claim> readClaim(Instant fireTime, int item) throws Exception {
        return reads.readClaim(fireTime, item);
    }

    /**
     * Which of these claims of one fire, held by this session, are still exactly as it holds them, read in one request:
     * an answer also proves the session still lives on the server.
     */
    public List<Claim> stillHeld(Instant fireTime, Collection<Claim> held) throws Exception {
        Map<Integer, Claim> stored =
                reads.readClaims(fireTime, held.stream().map(Claim::item).toList());
        return held.stream()
                .filter(claim -> {
                    Claim now = stored.get(claim.item());
                    return now != null
                            && now.version() == claim.version()
                            && now.sessionId() == claim.sessionId()
                            && now.state() == ClaimState.RUNNING;
                })
                .toList();
    }

    /** Whether another session's run, as an audit saw it, is still running now; when unknown, it is. */
    public boolean stillRuns(Claim other) {
        try {
            return readClaim(other.fireTime(), other.item())
                    .filter(now -> now.state() == ClaimState.RUNNING && now.sessionId() == other.sessionId())
                    .isPresent();
        } catch (Exception unreachable) {
            return true;
        }
    }

    /** The fires the ledger holds, oldest first. */
    public List<Instant> fires() throws Exception {
        return reads.fires();
    }

    /**
     * What an audit or the keeper reads first.
     *
     * @param watermark the fire every earlier fire is settled by, or the epoch when none is known
     * @param fires the fires the ledger holds, oldest first
     */
    public record Overview(Instant watermark, List<Instant> fires) {}

    /** The watermark and the fires, in one read-only multi-operation. */
    public Overview overview() throws Exception {
        String ledger = requests.full(nodes.ledger());
        List<OpResult> results = requests.send(
                "Multi", zooKeeper -> zooKeeper.multi(List.of(Op.getData(ledger), Op.getChildren(ledger))));
        Instant watermark =
                results.get(0) instanceof OpResult.GetDataResult data ? parseWatermark(data.getData()) : Instant.EPOCH;
        List<Instant> fires = results.get(1) instanceof OpResult.GetChildrenResult children
                ? children.getChildren().stream()
                        .map(Long::parseLong)
                        .sorted()
                        .map(Instant::ofEpochMilli)
                        .toList()
                : List.of();
        return new Overview(watermark, fires);
    }

    /** The fire every earlier fire is settled by, or the epoch when none is known. */
    public Instant watermark() throws Exception {
        return overview().watermark();
    }

    private static Instant parseWatermark(byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        return text.startsWith(WATERMARK_PREFIX)
                ? Instant.ofEpochMilli(
                        Long.parseLong(text.substring(WATERMARK_PREFIX.length()).trim()))
                : Instant.EPOCH;
    }

    /** Stores the watermark; only the leader writes it, and a stale one only makes audits look further back. */
    public void setWatermark(Instant settledThrough) throws Exception {
        byte[] data = (WATERMARK_PREFIX + settledThrough.toEpochMilli()).getBytes(StandardCharsets.UTF_8);
        requests.send("SetData", zooKeeper -> zooKeeper.setData(requests.full(nodes.ledger()), data, -1));
    }

    /** Every claim of the given fires, in two read-only multi-operations per few fires. Missing fires read empty. */
    public List<FireView> read(Collection<Instant> fireTimes) throws Exception {
        return reads.read(fireTimes);
    }

    /**
     * Deletes fires and their claims, several fires per multi-operation. A fire that gained a claim since it was read
     * is left for the next pass (its deletion fails as not empty).
     *
     * @return how many fires were deleted
     */
    public int retire(Collection<FireView> fires) throws Exception {
        int retired = 0;
        List<Op> ops = new ArrayList<>();
        List<FireView> inBatch = new ArrayList<>();
        for (FireView fire : fires) {
            if (!ops.isEmpty() && ops.size() + fire.claims().size() + 1 > LedgerRequests.MAX_OPS_PER_MULTI) {
                retired += deleteBatch(ops, inBatch);
            }
            fire.claims()
                    .keySet()
                    .forEach(item -> ops.add(Op.delete(requests.full(nodes.claim(fire.fireTime(), item)), -1)));
            ops.add(Op.delete(requests.full(nodes.ledgerFire(fire.fireTime())), -1));
            inBatch.add(fire);
        }
        if (!ops.isEmpty()) {
            retired += deleteBatch(ops, inBatch);
        }
        return retired;
    }

    private int deleteBatch(List<Op> ops, List<FireView> fires) throws Exception {
        try {
            requests.send("Multi", zooKeeper -> zooKeeper.multi(ops));
            fires.forEach(fire -> knownFires.remove(fire.fireTime().toEpochMilli()));
            return fires.size();
        } catch (KeeperException failed) {
            if (fires.size() == 1) {
                return 0;
            }
            // One fire changed since it was read: delete the others one by one.
            int retired = 0;
            for (FireView fire : fires) {
                retired += retire(List.of(fire));
            }
            return retired;
        } finally {
            ops.clear();
            fires.clear();
        }
    }

    /**
     * The sessions of the instances registered now, read from the server after a {@code sync}, never from a cache: a
     * cache that has not seen a registration yet would make that instance's claims look orphaned while it runs them.
     * An instance's registration is an ephemeral node, deleted by the server when its session ends, so its owner
     * session is live exactly while the node exists.
     */
    public Set<Long> liveSessions() throws Exception {
        return reads.liveSessions();
    }

    /** The instances registered now, each with the session that owns its registration, read as {@link #liveSessions}. */
    public Map<String, Long> liveInstances() throws Exception {
        return reads.liveInstances();
    }

    /**
     * Whether the session certainly still lives on the server, so that no other instance can have taken over its
     * claims, judged without a request: its last request was answered less than half a session timeout ago.
     */
    public boolean certainlyLive(long sessionId) {
        return requests.certainlyLive(sessionId);
    }

    /** The id of the session this instance's claims name. */
    public long sessionId() throws Exception {
        return requests.zooKeeper().getSessionId();
    }
}
