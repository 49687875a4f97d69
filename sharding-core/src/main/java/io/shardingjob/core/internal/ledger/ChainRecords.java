package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.ChainRule.Decision;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion note of one fire, written with the fires it records in the jobs that follow its job: one
 * multi-operation sets the note at the version read (a compare-and-set: one completer wins) and writes each follower's
 * fire at the same time as {@link ChainRule} decides, so a follower's fire is recorded exactly when the completion is,
 * never without it and never twice. A follower's fire that a watermark passed already is listed with the follower's
 * still-open fires (a versioned write of its ledger node), so that its audits read it; one no upstream is awaited for
 * any more is named in the follower's announcement node, so that its instances run it at once.
 *
 * <p>What changed in a follower between the read and the write (another upstream's completion of a fan-in, the
 * follower's own fire at that time, its keeper's watermark) fails the request at that follower's operation: the
 * followers are read again and the request made again. A request failed at the note lost to another completer.
 */
final class ChainRecords {

    private static final Logger log = LoggerFactory.getLogger(ChainRecords.class);

    /** Rounds of read and write before giving up: a fan-in's other upstreams complete once each. */
    private static final int MAX_ATTEMPTS = 16;

    /** Operations read per follower: its fire, its ledger node, its instances, its two announcement nodes. */
    private static final int READS = 5;

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final String jobName;
    private final ItemWiseRecords itemWise;

    /** Followers found without a ledger, told once each. */
    private final Set<String> unstarted = java.util.concurrent.ConcurrentHashMap.newKeySet();

    ChainRecords(ClientRequests requests, JobNodes nodes, String jobName, ItemWiseRecords itemWise) {
        this.requests = requests;
        this.nodes = nodes;
        this.jobName = jobName;
        this.itemWise = itemWise;
    }

    /**
     * Writes the fire's note at the version it was read with, and records the fire's completion in its followers.
     * Completes on ZooKeeper's event thread.
     *
     * @return whether this write won the note
     */
    public CompletableFuture<Boolean> writeCompletionAsync(
            FireView fire, int dueCount, String note, List<Follower> followers) {
        // An item-wise follower's items first, every one the ends did not record yet: its fire then stops awaiting
        // with the note, and no item of it is left undecided.
        List<Integer> items =
                IntStream.range(0, Math.min(fire.total(), dueCount)).boxed().toList();
        Instant at = ItemWiseRecords.lastEnd(fire.claims().values(), fire.fireTime());
        CompletableFuture<?>[] swept = followers.stream()
                .filter(Follower::itemWise)
                .map(follower -> itemWise.recordAsync(fire, items, true, follower, at))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(swept).thenCompose(done -> attempt(fire, dueCount, note, followers, 0));
    }

    private CompletableFuture<Boolean> attempt(
            FireView fire, int dueCount, String note, List<Follower> followers, int attempt) {
        return readFollowers(fire.fireTime(), followers).thenCompose(read -> {
            List<Op> ops = new ArrayList<>();
            String own = requests.full(nodes.ledgerFire(fire.fireTime()));
            ops.add(Op.setData(own, fire.origin().withNote(note), fire.noteVersion()));
            for (int index = 0; index < followers.size(); index++) {
                ops.addAll(
                        writes(fire, dueCount, followers.get(index), read.subList(index * READS, (index + 1) * READS)));
            }
            return requests.multiAsync("Multi", ops).thenCompose(answer -> {
                if (answer.ok()) {
                    return CompletableFuture.completedFuture(true);
                }
                int failedAt = answer.failedAt();
                KeeperException.Code code = answer.refusal();
                if (failedAt == 0 && ClaimWrites.lostRace(code)) {
                    return CompletableFuture.completedFuture(false);
                }
                // A follower changed since it was read: its fire was created or written, its ledger node moved.
                if (failedAt > 0 && ClaimWrites.raced(code) && attempt + 1 < MAX_ATTEMPTS) {
                    return attempt(fire, dueCount, note, followers, attempt + 1);
                }
                return CompletableFuture.failedFuture(ClientRequests.refused(code, answer.refusedPath(ops, own)));
            });
        });
    }

    private CompletableFuture<List<OpResult>> readFollowers(Instant fireTime, List<Follower> followers) {
        if (followers.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<Op> reads = new ArrayList<>();
        for (Follower follower : followers) {
            JobNodes theirs = new JobNodes(follower.job());
            reads.add(Op.getData(requests.full(theirs.ledgerFire(fireTime))));
            reads.add(Op.getData(requests.full(theirs.ledger())));
            reads.add(Op.getChildren(requests.full(theirs.instances())));
            reads.add(Op.getData(requests.full(theirs.manualFire())));
            reads.add(Op.getData(requests.full(theirs.rerun())));
        }
        return requests.multiAsync("Multi", reads).thenApply(MultiAnswer::results);
    }

    /** The operations that record the fire's completion in one follower, from what was read of it. */
    private List<Op> writes(FireView fire, int dueCount, Follower follower, List<OpResult> read) {
        JobNodes theirs = new JobNodes(follower.job());
        if (!(read.get(1) instanceof OpResult.GetDataResult ledger)) {
            if (unstarted.add(follower.job())) {
                log.warn(
                        "Job {}: {} follows it but has no ledger (removed, or never started): its fires are not"
                                + " recorded there; delete {} if it is gone for good",
                        jobName,
                        follower.job(),
                        nodes.follower(follower.job()));
            }
            return List.of();
        }
        OpResult.GetDataResult existing = read.get(0) instanceof OpResult.GetDataResult data ? data : null;
        boolean attended = read.get(2) instanceof OpResult.GetChildrenResult instances
                && !instances.getChildren().isEmpty();
        Decision decision = ChainRule.decide(
                jobName,
                fire.origin().chainOr(jobName),
                follower,
                ChainRule.holds(follower.on(), fire, dueCount),
                existing == null ? null : FireOrigin.read(existing.getData()).origin(),
                attended);
        if (!decision.writes()) {
            return List.of();
        }
        List<Op> ops = new ArrayList<>();
        String theirFire = theirs.ledgerFire(fire.fireTime());
        if (decision.create() != null) {
            ops.addAll(createFollowerFire(requests, theirs, fire.fireTime(), decision.create(), ledger));
        } else {
            ops.add(Op.setData(
                    requests.full(theirFire),
                    decision.update()
                            .withNote(FireOrigin.read(existing.getData()).note()),
                    existing.getStat().getVersion()));
        }
        // A fire-wise follower's instances fire it when told, as an operator's; an item-wise one's audit, as a re-run:
        // its items are claimed already, handed on to their owners.
        // A re-run's announcement only asks for an audit, which reads every fire: naming the latest is enough there.
        if (decision.announce() && follower.itemWise() && read.get(4) instanceof OpResult.GetDataResult) {
            ops.add(FireReruns.announce(requests, theirs, fire.fireTime(), true));
        }
        if (decision.announce() && !follower.itemWise() && read.get(3) instanceof OpResult.GetDataResult announced) {
            ops.add(Op.setData(
                    requests.full(theirs.manualFire()),
                    AnnouncedFires.decode(announced.getData())
                            .with(fire.fireTime())
                            .encode(),
                    announced.getStat().getVersion()));
        }
        return ops;
    }

    /**
     * Creates a follower's fire, listed with the follower's still-open fires when its watermark passed that time
     * already (audits read after the watermark only: listed, the fire is read until it settles, and not retired).
     *
     * @param ledger the follower's ledger node as read: its watermark, and the version the listing is written at
     */
    static List<Op> createFollowerFire(
            ClientRequests requests,
            JobNodes follower,
            Instant fireTime,
            FireOrigin origin,
            OpResult.GetDataResult ledger) {
        List<Op> ops = new ArrayList<>();
        ops.add(requests.createPersistent(follower.ledgerFire(fireTime), origin.withNote("")));
        Watermark mark = Watermark.decode(ledger.getData());
        if (!fireTime.isAfter(mark.settled())) {
            ops.add(Op.setData(
                    requests.full(follower.ledger()),
                    mark.listingOpen(fireTime).encode(),
                    ledger.getStat().getVersion()));
        }
        return ops;
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
                    if (answer.ok() || ClaimWrites.lostRace(answer.code())) {
                        return answer.ok();
                    }
                    throw ClientRequests.refused(answer.code(), path);
                });
    }
}
