package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * The fires an operator asks for, in the ledger. One multi-operation creates the fire's node, marked with its {@link
 * FireOrigin} (the job parameter its items run with), and appends the fire to the job's announcement node ({@link
 * JobNodes#manualFire()}) at the version read, which every instance watches through its cache: so a fire is never
 * announced without its record, and every run of its items reads the parameter there.
 *
 * <p>The {@code create} of the fire's node decides its fire time: a time another fire holds fails the request, and the
 * next millisecond is tried. The time is never at or before the ledger's watermark, which audits never look behind: an
 * instance whose clock lags the leader's would otherwise record a fire no audit makes up.
 *
 * <p>Race windows: a fire announced before an instance's cache first loaded, or pushed out of the announcement by
 * {@link AnnouncedFires#KEPT} later ones while that cache reconnected, is not handed on there; that instance's audit
 * makes its items up from the record. A request whose answer was lost with the connection may have been applied: the
 * fire then runs although its trigger failed, and a trigger asked again makes a second fire.
 */
public final class ManualFireRecords {

    /** Milliseconds tried after the first before giving up: more operators than that never trigger at once. */
    private static final int MAX_ATTEMPTS = 64;

    private final ClientRequests requests;
    private final JobNodes nodes;
    private final KnownFires knownFires;

    ManualFireRecords(ClientRequests requests, JobNodes nodes, KnownFires knownFires) {
        this.requests = requests;
        this.nodes = nodes;
        this.knownFires = knownFires;
    }

    /**
     * Records a manual fire and announces it, on a thread that may wait (an operator's).
     *
     * @param notBefore the earliest fire time: now
     * @return the fire's time, the ledger's key for it
     * @throws Exception when ZooKeeper did not answer, or refused for another reason than a taken fire time
     */
    public Instant record(Instant notBefore, FireOrigin origin) throws Exception {
        String ledger = requests.full(nodes.ledger());
        String announcement = requests.full(nodes.manualFire());
        List<OpResult> read =
                ClientRequests.await(requests.multiAsync("Multi", List.of(Op.getData(ledger), Op.getData(announcement)))
                        .thenApply(MultiAnswer::results));
        Instant watermark = read.get(0) instanceof OpResult.GetDataResult data
                ? Watermark.decode(data.getData()).settled()
                : Instant.EPOCH;
        Instant fireTime = FireSchedule.fireTimeOf(notBefore);
        if (!fireTime.isAfter(watermark)) {
            fireTime = watermark.plusMillis(1);
        }
        return ClientRequests.await(recordAsync(fireTime, origin, Announcement.of(read.get(1)), 0));
    }

    /** The announcement node as read: its list and version, or absent (a registry older than manual fires). */
    private record Announcement(AnnouncedFires fires, int version) {

        private static final int ABSENT = -1;

        static Announcement of(OpResult read) {
            return read instanceof OpResult.GetDataResult data
                    ? new Announcement(
                            AnnouncedFires.decode(data.getData()),
                            data.getStat().getVersion())
                    : new Announcement(AnnouncedFires.decode(null), ABSENT);
        }
    }

    private CompletableFuture<Instant> recordAsync(
            Instant fireTime, FireOrigin origin, Announcement announcement, int attempt) {
        String fire = requests.full(nodes.ledgerFire(fireTime));
        String announcementPath = requests.full(nodes.manualFire());
        byte[] named = announcement.fires().with(fireTime).encode();
        List<Op> ops = List.of(
                requests.createPersistent(nodes.ledgerFire(fireTime), origin.withNote("")),
                announcement.version() == Announcement.ABSENT
                        ? requests.createPersistent(nodes.manualFire(), named)
                        : Op.setData(announcementPath, named, announcement.version()));
        return requests.multiAsync("Multi", ops).thenCompose(answer -> {
            if (answer.ok()) {
                knownFires.add(fireTime);
                return CompletableFuture.completedFuture(fireTime);
            }
            int failed = answer.failedAt();
            KeeperException.Code code = answer.refusal();
            if (failed == 0 && code == KeeperException.Code.NODEEXISTS && attempt < MAX_ATTEMPTS) {
                // The time is another fire's: the next millisecond is this one's.
                return recordAsync(fireTime.plusMillis(1), origin, announcement, attempt + 1);
            }
            if (failed == 1 && ClaimWrites.raced(code) && attempt < MAX_ATTEMPTS) {
                // Another fire was announced since the read (or the node created, or removed): append to it as it is.
                return requests.multiAsync("Multi", List.of(Op.getData(announcementPath)))
                        .thenCompose(reread -> recordAsync(
                                fireTime,
                                origin,
                                Announcement.of(reread.results().get(0)),
                                attempt + 1));
            }
            return CompletableFuture.failedFuture(KeeperException.create(code, failed == 1 ? announcementPath : fire));
        });
    }

    /**
     * How the fire was asked for, read from its node on a thread that may wait (a fire's): a fire without a node yet, a
     * scheduled one, is {@link FireOrigin#SCHEDULED}.
     *
     * @throws Exception when ZooKeeper did not answer
     */
    public FireOrigin origin(Instant fireTime) throws Exception {
        String fire = requests.full(nodes.ledgerFire(fireTime));
        return ClientRequests.await(requests.multiAsync("Multi", List.of(Op.getData(fire)))
                .thenApply(answer -> {
                    if (answer.results().get(0) instanceof OpResult.GetDataResult data) {
                        // Found: the claims of this instance in it need not create it.
                        knownFires.add(fireTime);
                        return FireOrigin.read(data.getData()).origin();
                    }
                    return FireOrigin.SCHEDULED;
                }));
    }
}
