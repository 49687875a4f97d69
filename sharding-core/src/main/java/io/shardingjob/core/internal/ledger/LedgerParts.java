package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.SessionProof;
import org.apache.curator.framework.CuratorFramework;

/**
 * The fire ledger of one job, by role, each part owning its requests: the claims as written ({@link ClaimWrites}),
 * what is read of them and of the live sessions ({@link LedgerReads}, {@link LiveSessions}), the keeper's watermark
 * and retirement ({@link KeeperWrites}, {@link AwaitedUpstreams}), operators' fires ({@link ManualFireRecords},
 * {@link FireReruns}) and the records of the jobs that follow this one ({@link ChainRecords}, {@link
 * ItemWiseRecords}). Built together because they share the session's handle and the fires this instance knows exist;
 * the wiring hands each stage the parts it uses, never this record.
 */
public record LedgerParts(
        ClaimWrites claims,
        LedgerReads reads,
        LiveSessions sessions,
        KeeperWrites keeper,
        AwaitedUpstreams awaited,
        ManualFireRecords manualFires,
        FireReruns reruns,
        ChainRecords chains,
        ItemWiseRecords itemWise,
        SessionProof proof) {

    public static LedgerParts of(CuratorFramework client, JobNodes nodes) {
        ClientRequests requests = new ClientRequests(client, "Ledger");
        LedgerReads reads = new LedgerReads(requests, nodes);
        KnownFires knownFires = new KnownFires();
        String jobName = JobNodes.name(nodes.root());
        ItemWiseRecords itemWise = new ItemWiseRecords(requests, jobName);
        return new LedgerParts(
                new ClaimWrites(requests, reads, nodes, knownFires),
                reads,
                new LiveSessions(requests, nodes),
                new KeeperWrites(requests, nodes, knownFires),
                new AwaitedUpstreams(requests, nodes),
                new ManualFireRecords(requests, nodes, knownFires),
                new FireReruns(requests, reads, nodes),
                new ChainRecords(requests, nodes, jobName, itemWise),
                itemWise,
                new SessionProof(requests, nodes.root()));
    }
}
