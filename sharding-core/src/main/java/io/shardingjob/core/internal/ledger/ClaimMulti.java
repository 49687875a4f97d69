package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.ClaimWrites.Committed;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * One multi-operation of claim writes, and what its failures mean: owner writes at the version each holds, then new
 * claims of one fire (with the fire's node when this instance does not know it exists). A multi is all or nothing, so
 * an operation the server refuses is settled on its own (a stale version is a lost claim, an existing claim is another
 * claimer's) and the rest is sent again without it. A request with a start in it, written or created, checks the
 * assignment's version ({@link AssignmentGuard}). It never waits: each answer is handled as it arrives, on ZooKeeper's
 * event thread, so a caller that must not block (the group commit) does not.
 */
final class ClaimMulti {

    /** Rounds of new claims that keep finding the fire changed under them before the attempt gives up. */
    private static final int MAX_CLAIM_ROUNDS = 4;

    private final ClientRequests requests;
    private final LedgerReads reads;
    private final JobNodes nodes;
    private final KnownFires knownFires;

    ClaimMulti(ClientRequests requests, LedgerReads reads, JobNodes nodes, KnownFires knownFires) {
        this.requests = requests;
        this.reads = reads;
        this.nodes = nodes;
        this.knownFires = knownFires;
    }

    /**
     * The writes and the new claims as one request, sent by its {@link Request#round()}: again without each operation
     * the server refuses, adding what came of them to {@code outcome}. The round completes exceptionally when the
     * server did not answer (whether the writes happened is then unknown).
     *
     * @param writes owner writes, each at the version its claim holds, at most one per claim
     * @param fireTime the fire of the new claims; ignored when there are none
     * @param guard the assignment the starts among them, written or created, were decided under
     */
    Request request(
            List<Claim> writes,
            Instant fireTime,
            List<Claim> creates,
            FireNodes fireNodes,
            AssignmentGuard guard,
            Committed outcome) {
        return new Request(writes, fireTime, creates, fireNodes, guard, outcome);
    }

    /** One call's writes and new claims, as its rounds leave them: each refused operation settled and taken out. */
    final class Request {
        private final List<Claim> sets;
        private final Instant fireTime;
        private final List<Claim> news;
        private final AssignmentGuard guard;
        private final Committed outcome;
        private FireNodes fireNodes;
        private int claimRounds;
        // What the round in flight adds to the writes and claims: the guard's check, the fire's node, a later one's.
        private boolean guarded;
        private boolean withFire;
        private @Nullable Instant ahead;

        private Request(
                List<Claim> writes,
                Instant fireTime,
                List<Claim> creates,
                FireNodes fireNodes,
                AssignmentGuard guard,
                Committed outcome) {
            this.sets = new ArrayList<>(writes);
            this.fireTime = fireTime;
            this.news = new ArrayList<>(creates);
            if (guard.version() < 0) {
                // No version to check: a claim created started could begin under an assignment that moved its item.
                news.replaceAll(AssignmentGuard::unstarted);
            }
            this.fireNodes = fireNodes;
            this.guard = guard;
            this.outcome = outcome;
        }

        /** Sends what is left of the request, and settles its answer. */
        CompletableFuture<Committed> round() {
            Instant later = fireNodes.createAhead();
            ahead = later != null && !knownFires.contains(later) ? later : null;
            if (sets.isEmpty() && news.isEmpty() && ahead == null) {
                return CompletableFuture.completedFuture(outcome);
            }
            withFire = !news.isEmpty() && !fireNodes.assumeExists() && !knownFires.contains(fireTime);
            // The guard goes last among the owner writes, so that the indexes of the writes stay those of the list.
            guarded = sets.stream().anyMatch(guard::covers) || news.stream().anyMatch(AssignmentGuard::coversCreate);
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
            if (ahead != null) {
                ops.add(requests.createPersistent(nodes.ledgerFire(ahead), LedgerRules.AHEAD_NOTE));
            }
            return requests.multiAsync("Multi", ops)
                    .thenCompose(answer -> answer.ok() ? accepted(answer) : refused(answer, ops.size()));
        }

        /** The index of the fire's node among the operations; the new claims follow it. */
        private int fireIndex() {
            return sets.size() + (guarded ? 1 : 0);
        }

        private CompletableFuture<Committed> accepted(MultiAnswer answer) {
            for (int i = 0; i < sets.size(); i++) {
                Stat stat = ((OpResult.SetDataResult) answer.results().get(i)).getStat();
                outcome.written().written().add(sets.get(i).written(stat, false));
            }
            int offset = fireIndex() + (withFire ? 1 : 0);
            for (int i = 0; i < news.size(); i++) {
                Stat stat = ((OpResult.CreateResult) answer.results().get(offset + i)).getStat();
                outcome.claimed().won().put(news.get(i).item(), news.get(i).written(stat, true));
            }
            if (!news.isEmpty()) {
                knownFires.add(fireTime);
            }
            if (ahead != null) {
                knownFires.add(ahead);
            }
            return CompletableFuture.completedFuture(outcome);
        }

        /** Settles the operation the server refused, and sends the rest again without it. */
        private CompletableFuture<Committed> refused(MultiAnswer answer, int ops) {
            int index = answer.failedAt();
            if (index < 0) {
                return CompletableFuture.failedFuture(KeeperException.create(answer.code()));
            }
            KeeperException.Code code = answer.errorAt(index);
            if (ahead != null && index == ops - 1) {
                // Created by another instance already, or not creatable: the claims do not depend on it.
                knownFires.add(ahead);
                return round();
            }
            if (index < sets.size()) {
                return refusedWrite(sets.remove(index), code).thenCompose(settled -> round());
            }
            if (guarded && index == sets.size()) {
                refusedGuard();
                return round();
            }
            if (claimRounds >= MAX_CLAIM_ROUNDS) {
                return CompletableFuture.failedFuture(new IllegalStateException("Could not claim items of the fire at "
                        + fireTime + " in " + MAX_CLAIM_ROUNDS + " rounds: the ledger keeps changing under them"));
            }
            claimRounds++;
            return refusedClaim(withFire && index == fireIndex(), code).thenCompose(settled -> round());
        }

        /**
         * Settles an owner write the server refused: lost, unless it is stored already. An earlier attempt of it reached
         * the server although the client saw the connection drop, so the retry's version is stale: such a write is this
         * owner's.
         */
        private CompletableFuture<Void> refusedWrite(Claim refused, KeeperException.Code code) {
            if (!ClaimWrites.lostRace(code)) {
                return CompletableFuture.failedFuture(KeeperException.create(code));
            }
            CompletableFuture<Optional<Claim>> landed = code == KeeperException.Code.BADVERSION
                    ? reads.readClaimAsync(refused.fireTime(), refused.item())
                            .thenApply(stored -> stored.filter(now -> Arrays.equals(now.encode(), refused.encode())))
                    : CompletableFuture.completedFuture(Optional.empty());
            return landed.thenAccept(stored -> {
                if (stored.isPresent()) {
                    outcome.written().written().add(stored.get());
                } else {
                    outcome.written().lost().add(refused);
                }
            });
        }

        /**
         * Settles the check refused: a newer assignment was written since the one the starts were decided under. None
         * of the starts is written, and the claims go reserved, their runs deciding again under the assignment in force.
         */
        private void refusedGuard() {
            sets.stream().filter(guard::covers).forEach(outcome.written().moved()::add);
            sets.removeIf(guard::covers);
            news.replaceAll(AssignmentGuard::unstarted);
        }

        private CompletableFuture<Void> refusedClaim(boolean fireNodeRefused, KeeperException.Code code) {
            if (code == KeeperException.Code.NONODE) {
                // A fire node taken to exist, or known to, that does not (retired meanwhile): created with the claims
                // in the next round.
                fireNodes = new FireNodes(false, fireNodes.createAhead());
                knownFires.remove(fireTime);
                return CompletableFuture.completedFuture(null);
            }
            if (code != KeeperException.Code.NODEEXISTS) {
                return CompletableFuture.failedFuture(KeeperException.create(code));
            }
            knownFires.add(fireTime);
            if (fireNodeRefused) {
                return CompletableFuture.completedFuture(null);
            }
            return reads.claimsOfAsync(fireTime)
                    .thenAccept(existing -> news.removeIf(claim -> {
                        Claim other = existing.get(claim.item());
                        if (other != null) {
                            outcome.claimed().lost().put(claim.item(), other);
                        }
                        return other != null;
                    }));
        }
    }

    /** What one claim write adds to a request: its path, its data and the operation's own fields. */
    int bytes(Claim claim) {
        return path(claim).length() + claim.encode().length + 32;
    }

    private String path(Claim claim) {
        return requests.full(nodes.claim(claim.fireTime(), claim.item()));
    }
}
