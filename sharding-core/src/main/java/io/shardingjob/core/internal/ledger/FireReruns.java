package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.RerunRule.Verdict;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * An operator's re-run of one past fire's failed items. One multi-operation reopens the failed claims ({@link
 * RerunRule#reopened}), each at the version read; lists the fire with the watermark's still-open fires (a versioned
 * write of the ledger node); clears the fire's completion note, so that it completes again once the re-run settled it;
 * and names the fire in the job's announcement node ({@link JobNodes#rerun()}), which every instance watches and
 * answers with an audit: the owners of the reopened items take them over as any handed-on claim.
 *
 * <p>Listing the fire makes the audits read it again, however long ago the watermark passed it and whatever this
 * instance's memory says. It also fences the retention: the keeper writes the watermark, and deletes old fires, only at
 * the ledger node's version it read, so a re-run between its read and its deletion makes the deletion fail, and a
 * deletion that came first leaves the re-run refused.
 *
 * <p>Race windows: of two re-runs of one fire, the second fails at a claim's version, reads again and finds the items
 * open: refused. A request whose answer was lost with the connection may have been applied: the items then run although
 * the re-run failed.
 */
public final class FireReruns {

    /** Rounds of read and write before giving up: the ledger node changes at most once per keeper pass. */
    private static final int MAX_ATTEMPTS = 16;

    private final ClientRequests requests;
    private final LedgerReads reads;
    private final JobNodes nodes;

    FireReruns(ClientRequests requests, LedgerReads reads, JobNodes nodes) {
        this.requests = requests;
        this.reads = reads;
        this.nodes = nodes;
    }

    /**
     * Reopens the failed claims of a fire, on a thread that may wait (an operator's).
     *
     * @throws Exception when ZooKeeper did not answer, or the ledger kept changing
     */
    public Verdict reopen(Instant fireTime, Supplier<Instant> now) throws Exception {
        boolean announcementExists = true;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            String ledger = requests.full(nodes.ledger());
            OpResult read = ClientRequests.await(requests.multiAsync("Multi", List.of(Op.getData(ledger))))
                    .results()
                    .get(0);
            if (!(read instanceof OpResult.GetDataResult data)) {
                throw KeeperException.create(KeeperException.Code.NONODE, ledger);
            }
            Watermark mark = Watermark.decode(data.getData());
            LedgerRules.FireView fire = ClientRequests.await(reads.readAsync(List.of(fireTime))).stream()
                    .findFirst()
                    .orElseGet(() -> new LedgerRules.FireView(fireTime, java.util.Map.of()));
            Instant at = now.get();
            Verdict verdict = RerunRule.decide(fire, at);
            if (!(verdict instanceof RerunRule.Reopen reopen)) {
                return verdict;
            }
            List<Op> ops = new ArrayList<>();
            for (Claim failed : reopen.failed()) {
                ops.add(Op.setData(
                        requests.full(nodes.claim(fireTime, failed.item())),
                        RerunRule.reopened(failed, at).encode(),
                        failed.version()));
            }
            if (fire.noteVersion() >= 0) {
                // The fire completes again once the re-run settled it: its listener hears the new outcomes, and the
                // jobs following it are recorded if it now completed as they follow it.
                ops.add(Op.setData(
                        requests.full(nodes.ledgerFire(fireTime)), fire.origin().withNote(""), fire.noteVersion()));
            }
            ops.add(Op.setData(
                    ledger, mark.listingOpen(fireTime).encode(), data.getStat().getVersion()));
            ops.add(announce(requests, nodes, fireTime, announcementExists));
            MultiAnswer answer = ClientRequests.await(requests.multiAsync("Multi", ops));
            if (answer.ok()) {
                return verdict;
            }
            KeeperException.Code code = answer.refusal();
            if (answer.failedAt() == ops.size() - 1
                    && (code == KeeperException.Code.NONODE || code == KeeperException.Code.NODEEXISTS)) {
                // The announcement node is missing (a registry older than re-runs), or was created meanwhile.
                announcementExists = code == KeeperException.Code.NODEEXISTS;
            } else if (!ClaimWrites.lostRace(code)) {
                throw KeeperException.create(code, answer.refusedPath(ops, ledger));
            }
            // A claim changed (another re-run, the fire retired) or the watermark moved: read again and decide again.
        }
        throw new IllegalStateException("the ledger kept changing during " + MAX_ATTEMPTS + " attempts to re-run");
    }

    /**
     * Names a fire in a job's re-run node, whatever it held: every instance answers a change of it with an audit, and
     * what is reopened lives in the claims. Its data is an {@link AnnouncedFires} list of one.
     *
     * @param exists whether the node exists: one is missing in a registry older than re-runs
     */
    static Op announce(ClientRequests requests, JobNodes job, Instant fireTime, boolean exists) {
        byte[] named = new AnnouncedFires(List.of(fireTime)).encode();
        return exists
                ? Op.setData(requests.full(job.rerun()), named, -1)
                : requests.createPersistent(job.rerun(), named);
    }
}
