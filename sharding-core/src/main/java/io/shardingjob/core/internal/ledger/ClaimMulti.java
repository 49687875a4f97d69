package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * One multi-operation of claim writes, and what its failures mean: owner writes at the version each holds, then new
 * claims of one fire (with the fire's node when this instance does not know it exists). A multi is all or nothing, so
 * an operation the server refuses is settled on its own (a stale version is a lost claim, an existing claim is another
 * claimer's) and the rest is sent again without it. Claiming a fire, recording ends, and recording ends together with
 * the claims of the next fire are all this one request. A request with a start in it, written or created, checks the
 * assignment's version ({@link AssignmentGuard}). It never waits: each answer is handled as it arrives, on ZooKeeper's
 * event thread, so a caller that must not block (the group commit) does not.
 */
final class ClaimMulti {

    /** Rounds of new claims that keep finding the fire changed under them before the attempt gives up. */
    private static final int MAX_CLAIM_ROUNDS = 4;

    private final ClientRequests requests;

    private final LedgerReads reads;

    private final JobNodes nodes;

    /** Fires whose node this instance created or found, so that its next claims in them skip creating it. */
    private final KnownFires knownFires;

    ClaimMulti(ClientRequests requests, LedgerReads reads, JobNodes nodes, KnownFires knownFires) {
        this.requests = requests;
        this.reads = reads;
        this.nodes = nodes;
        this.knownFires = knownFires;
    }

    /**
     * Sends the writes and the new claims in one request, again without each operation the server refuses, without
     * waiting: every answer is handled on ZooKeeper's event thread, and nothing here blocks.
     *
     * @param writes owner writes, each at the version its claim holds, at most one per claim
     * @param fireTime the fire of the new claims; ignored when there are none
     * @param creates new claims ({@link Claim#first}) of that fire
     * @param fireNodes whether the fire's node is taken to exist, and a later fire's node to create ahead
     * @param guard the assignment the starts among them, written or created, were decided under
     * @return the outcome given, filled in; completes exceptionally when the server did not answer (whether the writes
     *     happened is then unknown)
     */
    CompletableFuture<Outcome> send(
            List<Claim> writes,
            Instant fireTime,
            List<Claim> creates,
            FireNodes fireNodes,
            AssignmentGuard guard,
            Outcome outcome) {
        List<Claim> news = new ArrayList<>(creates);
        if (guard.version() < 0) {
            // No version to check: a claim created started could begin under an assignment that moved its item.
            news.replaceAll(AssignmentGuard::unstarted);
        }
        return round(new ArrayList<>(writes), fireTime, news, fireNodes, guard, outcome, 0);
    }

    private CompletableFuture<Outcome> round(
            List<Claim> sets,
            Instant fireTime,
            List<Claim> news,
            FireNodes fireNodes,
            AssignmentGuard guard,
            Outcome outcome,
            int claimRounds) {
        Instant ahead = fireNodes.createAhead();
        boolean withAhead = ahead != null && !knownFires.contains(ahead);
        if (sets.isEmpty() && news.isEmpty() && !withAhead) {
            return CompletableFuture.completedFuture(outcome);
        }
        boolean withFire = !news.isEmpty() && !fireNodes.assumeExists() && !knownFires.contains(fireTime);
        // The guard goes last among the owner writes, so that the indexes of the writes stay those of the list.
        boolean guarded =
                sets.stream().anyMatch(guard::covers) || news.stream().anyMatch(AssignmentGuard::coversCreate);
        List<Op> ops = new ArrayList<>(sets.size() + news.size() + 3);
        sets.forEach(claim -> ops.add(Op.setData(path(claim), claim.encode(), claim.version())));
        if (guarded) {
            ops.add(Op.check(requests.full(nodes.assignment()), guard.version()));
        }
        if (withFire) {
            ops.add(requests.createPersistent(nodes.ledgerFire(fireTime), new byte[0]));
        }
        news.forEach(claim ->
                ops.add(requests.createPersistent(nodes.claim(claim.fireTime(), claim.item()), claim.encode())));
        if (withAhead) {
            ops.add(requests.createPersistent(nodes.ledgerFire(ahead), LedgerRules.AHEAD_NOTE));
        }
        return requests.multiAsync("Multi", ops).thenCompose(answer -> {
            if (answer.ok()) {
                for (int i = 0; i < sets.size(); i++) {
                    Stat stat = ((OpResult.SetDataResult) answer.results().get(i)).getStat();
                    outcome.written.add(sets.get(i).written(stat, false));
                }
                int offset = sets.size() + (guarded ? 1 : 0) + (withFire ? 1 : 0);
                for (int i = 0; i < news.size(); i++) {
                    Stat stat = ((OpResult.CreateResult) answer.results().get(offset + i)).getStat();
                    outcome.won.put(news.get(i).item(), news.get(i).written(stat, true));
                }
                if (!news.isEmpty()) {
                    knownFires.add(fireTime);
                }
                if (withAhead) {
                    knownFires.add(ahead);
                }
                return CompletableFuture.completedFuture(outcome);
            }
            int index = answer.failedAt();
            if (index < 0) {
                return CompletableFuture.failedFuture(KeeperException.create(answer.code()));
            }
            KeeperException.Code code = answer.errorAt(index);
            if (withAhead && index == ops.size() - 1) {
                // Created by another instance already, or not creatable: the claims do not depend on it.
                knownFires.add(ahead);
                return round(sets, fireTime, news, fireNodes, guard, outcome, claimRounds);
            }
            if (index < sets.size()) {
                return refusedWrite(sets.remove(index), code, outcome)
                        .thenCompose(settled -> round(sets, fireTime, news, fireNodes, guard, outcome, claimRounds));
            }
            if (guarded && index == sets.size()) {
                refusedGuard(sets, news, guard, outcome);
                return round(sets, fireTime, news, fireNodes, guard, outcome, claimRounds);
            }
            if (claimRounds >= MAX_CLAIM_ROUNDS) {
                return CompletableFuture.failedFuture(new IllegalStateException("Could not claim items of the fire at "
                        + fireTime + " in " + MAX_CLAIM_ROUNDS + " rounds: the ledger keeps changing under them"));
            }
            // A node taken to exist that does not: created with the claims in the next round.
            FireNodes next =
                    code == KeeperException.Code.NONODE ? new FireNodes(false, fireNodes.createAhead()) : fireNodes;
            int fireIndex = sets.size() + (guarded ? 1 : 0);
            return refusedClaim(fireTime, news, withFire && index == fireIndex, code, outcome)
                    .thenCompose(settled -> round(sets, fireTime, news, next, guard, outcome, claimRounds + 1));
        });
    }

    /**
     * Settles an owner write the server refused: lost, unless it is stored already. An earlier attempt of it reached the
     * server although the client saw the connection drop, so the retry's version is stale: such a write is this owner's.
     */
    private CompletableFuture<Void> refusedWrite(Claim refused, KeeperException.Code code, Outcome outcome) {
        if (code != KeeperException.Code.BADVERSION && code != KeeperException.Code.NONODE) {
            return CompletableFuture.failedFuture(KeeperException.create(code));
        }
        CompletableFuture<Optional<Claim>> landed = code == KeeperException.Code.BADVERSION
                ? reads.readClaimAsync(refused.fireTime(), refused.item())
                        .thenApply(stored -> stored.filter(now -> Arrays.equals(now.encode(), refused.encode())))
                : CompletableFuture.completedFuture(Optional.empty());
        return landed.thenAccept(stored -> {
            if (stored.isPresent()) {
                outcome.written.add(stored.get());
            } else {
                outcome.lost.add(refused);
            }
        });
    }

    /**
     * Settles the check refused: a newer assignment was written since the one the starts were decided under. None of
     * the starts is written, and the claims go reserved, their runs deciding again under the assignment in force.
     */
    private static void refusedGuard(List<Claim> sets, List<Claim> news, AssignmentGuard guard, Outcome outcome) {
        sets.removeIf(claim -> {
            if (guard.covers(claim)) {
                outcome.moved.add(claim);
                return true;
            }
            return false;
        });
        news.replaceAll(AssignmentGuard::unstarted);
    }

    private CompletableFuture<Void> refusedClaim(
            Instant fireTime, List<Claim> news, boolean fireNodeRefused, KeeperException.Code code, Outcome outcome) {
        if (fireNodeRefused && code == KeeperException.Code.NODEEXISTS) {
            knownFires.add(fireTime);
            return CompletableFuture.completedFuture(null);
        }
        if (code == KeeperException.Code.NONODE) {
            // The fire node this instance knew was retired meanwhile: create it again with the claims.
            knownFires.remove(fireTime);
            return CompletableFuture.completedFuture(null);
        }
        if (code != KeeperException.Code.NODEEXISTS) {
            return CompletableFuture.failedFuture(KeeperException.create(code));
        }
        knownFires.add(fireTime);
        return reads.claimsOfAsync(fireTime)
                .thenAccept(existing -> news.removeIf(claim -> {
                    Claim other = existing.get(claim.item());
                    if (other != null) {
                        outcome.taken.put(claim.item(), other);
                    }
                    return other != null;
                }));
    }

    /** What one claim write adds to a request: its path, its data and the operation's own fields. */
    int bytes(Claim claim) {
        return path(claim).length() + claim.encode().length + 32;
    }

    private String path(Claim claim) {
        return requests.full(nodes.claim(claim.fireTime(), claim.item()));
    }

    /**
     * What the requests came to, gathered over the batches of one call.
     *
     * @param written the owner writes as now stored, with their new versions
     * @param lost the owner writes refused because the claim is no longer this writer's (taken over, retired)
     * @param moved the guarded owner writes refused because a newer assignment was written than the one they were
     *     decided under
     * @param won the new claims created, with their version and fencing token
     * @param taken the items of new claims another claim already covered, with that claim as read
     */
    record Outcome(
            List<Claim> written,
            List<Claim> lost,
            List<Claim> moved,
            Map<Integer, Claim> won,
            Map<Integer, Claim> taken) {

        Outcome() {
            this(
                    new ArrayList<>(),
                    new ArrayList<>(),
                    new ArrayList<>(),
                    new java.util.TreeMap<>(),
                    new java.util.TreeMap<>());
        }
    }
}
