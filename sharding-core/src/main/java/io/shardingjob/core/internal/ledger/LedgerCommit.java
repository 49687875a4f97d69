package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * One multi-operation of claim writes, and what its failures mean: owner writes at the version each holds, then new
 * claims of one fire (with the fire's node when this instance does not know it exists). A multi is all or nothing, so
 * an operation the server refuses is settled on its own (a stale version is a lost claim, an existing claim is another
 * claimer's) and the rest is sent again without it. Claiming a fire, recording ends, and recording ends together with
 * the claims of the next fire are all this one request.
 */
final class LedgerCommit {

    /** Rounds of new claims that keep finding the fire changed under them before the attempt gives up. */
    private static final int MAX_CLAIM_ROUNDS = 4;

    private final LedgerRequests requests;

    private final LedgerReads reads;

    private final JobNodes nodes;

    /** Fires whose node this instance created or found, so that its next claims in them skip creating it. */
    private final Set<Long> knownFires;

    LedgerCommit(LedgerRequests requests, LedgerReads reads, JobNodes nodes, Set<Long> knownFires) {
        this.requests = requests;
        this.reads = reads;
        this.nodes = nodes;
        this.knownFires = knownFires;
    }

    /**
     * Sends the writes and the new claims in one request, again without each operation the server refuses.
     *
     * @param writes owner writes, each at the version its claim holds, at most one per claim
     * @param fireTime the fire of the new claims; ignored when there are none
     * @param creates new claims ({@link Claim#first}) of that fire
     */
    Outcome send(List<Claim> writes, Instant fireTime, List<Claim> creates, Outcome outcome) throws Exception {
        List<Claim> sets = new ArrayList<>(writes);
        List<Claim> news = new ArrayList<>(creates);
        int claimRounds = 0;
        while (!sets.isEmpty() || !news.isEmpty()) {
            boolean withFire = !news.isEmpty() && !knownFires.contains(fireTime.toEpochMilli());
            List<Op> ops = new ArrayList<>(sets.size() + news.size() + 1);
            sets.forEach(claim -> ops.add(Op.setData(path(claim), claim.encode(), claim.version())));
            if (withFire) {
                ops.add(Op.create(requests.full(nodes.ledgerFire(fireTime)), new byte[0], persistent()));
            }
            news.forEach(claim -> ops.add(Op.create(path(claim), claim.encode(), persistent())));
            try {
                List<OpResult> results = requests.send("Multi", zooKeeper -> zooKeeper.multi(ops));
                for (int i = 0; i < sets.size(); i++) {
                    Stat stat = ((OpResult.SetDataResult) results.get(i)).getStat();
                    outcome.written.add(sets.get(i).written(stat, false));
                }
                int offset = sets.size() + (withFire ? 1 : 0);
                for (int i = 0; i < news.size(); i++) {
                    Stat stat = ((OpResult.CreateResult) results.get(offset + i)).getStat();
                    outcome.won.put(news.get(i).item(), news.get(i).written(stat, true));
                }
                if (!news.isEmpty()) {
                    knownFires.add(fireTime.toEpochMilli());
                }
                return outcome;
            } catch (KeeperException failed) {
                int index = LedgerRequests.firstFailure(failed);
                if (index < 0) {
                    throw failed;
                }
                KeeperException.Code code = KeeperException.Code.get(LedgerRequests.errorOf(failed, index));
                if (index < sets.size()) {
                    refusedWrite(sets.remove(index), code, failed, outcome);
                } else if (++claimRounds > MAX_CLAIM_ROUNDS) {
                    throw new IllegalStateException("Could not claim items of the fire at " + fireTime + " in "
                            + MAX_CLAIM_ROUNDS + " rounds: the ledger keeps changing under them");
                } else {
                    refusedClaim(fireTime, news, withFire && index == sets.size(), code, failed, outcome);
                }
            }
        }
        return outcome;
    }

    private void refusedWrite(Claim refused, KeeperException.Code code, KeeperException failed, Outcome outcome)
            throws Exception {
        if (code != KeeperException.Code.BADVERSION && code != KeeperException.Code.NONODE) {
            throw failed;
        }
        Optional<Claim> landed = code == KeeperException.Code.BADVERSION ? landedEarlier(refused) : Optional.empty();
        if (landed.isPresent()) {
            outcome.written.add(landed.get());
        } else {
            outcome.lost.add(refused);
        }
    }

    /**
     * The claim as stored, when it holds exactly this write: an earlier attempt of it reached the server although the
     * client saw the connection drop, so the retry's version is stale. Such a write is this owner's, not lost.
     */
    private Optional<Claim> landedEarlier(Claim refused) throws Exception {
        return reads.readClaim(refused.fireTime(), refused.item())
                .filter(stored -> Arrays.equals(stored.encode(), refused.encode()));
    }

    private void refusedClaim(
            Instant fireTime,
            List<Claim> news,
            boolean fireNodeRefused,
            KeeperException.Code code,
            KeeperException failed,
            Outcome outcome)
            throws Exception {
        if (fireNodeRefused && code == KeeperException.Code.NODEEXISTS) {
            knownFires.add(fireTime.toEpochMilli());
        } else if (code == KeeperException.Code.NONODE) {
            // The fire node this instance knew was retired meanwhile: create it again with the claims.
            knownFires.remove(fireTime.toEpochMilli());
        } else if (code == KeeperException.Code.NODEEXISTS) {
            knownFires.add(fireTime.toEpochMilli());
            Map<Integer, Claim> existing = reads.read(List.of(fireTime)).get(0).claims();
            news.removeIf(claim -> {
                Claim other = existing.get(claim.item());
                if (other != null) {
                    outcome.taken.put(claim.item(), other);
                }
                return other != null;
            });
        } else {
            throw failed;
        }
    }

    /** What one claim write adds to a request: its path, its data and the operation's own fields. */
    int bytes(Claim claim) {
        return path(claim).length() + claim.encode().length + 32;
    }

    private String path(Claim claim) {
        return requests.full(nodes.claim(claim.fireTime(), claim.item()));
    }

    private static CreateOptions persistent() {
        return CreateOptions.newBuilder(ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)
                .build();
    }

    /**
     * What the requests came to, gathered over the batches of one call.
     *
     * @param written the owner writes as now stored, with their new versions
     * @param lost the owner writes refused because the claim is no longer this writer's (taken over, retired)
     * @param won the new claims created, with their version and fencing token
     * @param taken the items of new claims another claim already covered, with that claim as read
     */
    record Outcome(List<Claim> written, List<Claim> lost, Map<Integer, Claim> won, Map<Integer, Claim> taken) {

        Outcome() {
            this(new ArrayList<>(), new ArrayList<>(), new java.util.TreeMap<>(), new java.util.TreeMap<>());
        }
    }
}
