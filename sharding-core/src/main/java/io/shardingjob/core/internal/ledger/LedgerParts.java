package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.SessionProof;
import org.apache.curator.framework.CuratorFramework;

/**
 * The fire ledger of one job, by role, each part owning its requests. Built together because they share the session's
 * handle and the fires this instance knows exist; the wiring hands each stage the parts it uses, never this object.
 */
public final class LedgerParts {

    private final LedgerReads reads;
    private final ClaimWrites claims;
    private final LiveSessions sessions;
    private final KeeperWrites keeper;
    private final AwaitedUpstreams awaited;
    private final ManualFireRecords manualFires;
    private final FireReruns reruns;
    private final ItemWiseRecords itemWise;
    private final ChainRecords chains;
    private final SessionProof proof;

    private LedgerParts(CuratorFramework client, JobNodes nodes) {
        ClientRequests requests = new ClientRequests(client, "Ledger");
        KnownFires knownFires = new KnownFires();
        String jobName = JobNodes.name(nodes.root());
        this.reads = new LedgerReads(requests, nodes);
        this.claims = new ClaimWrites(requests, reads, nodes, knownFires);
        this.sessions = new LiveSessions(requests, nodes);
        this.keeper = new KeeperWrites(requests, nodes, knownFires);
        this.awaited = new AwaitedUpstreams(requests, nodes);
        this.manualFires = new ManualFireRecords(requests, nodes, knownFires);
        this.reruns = new FireReruns(requests, reads, nodes);
        this.itemWise = new ItemWiseRecords(requests, jobName);
        this.chains = new ChainRecords(requests, nodes, jobName, itemWise);
        this.proof = new SessionProof(requests, nodes.root());
    }

    public static LedgerParts of(CuratorFramework client, JobNodes nodes) {
        return new LedgerParts(client, nodes);
    }

    public ClaimWrites claims() {
        return claims;
    }

    public LedgerReads reads() {
        return reads;
    }

    public LiveSessions sessions() {
        return sessions;
    }

    public KeeperWrites keeper() {
        return keeper;
    }

    public AwaitedUpstreams awaited() {
        return awaited;
    }

    public ManualFireRecords manualFires() {
        return manualFires;
    }

    public FireReruns reruns() {
        return reruns;
    }

    public ChainRecords chains() {
        return chains;
    }

    public ItemWiseRecords itemWise() {
        return itemWise;
    }

    public SessionProof proof() {
        return proof;
    }
}
