package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives up the fires of this job that wait for an upstream whose fire at the same time can no longer complete: the
 * upstream had no fire then and its watermark passed it (a cron that does not meet the other upstreams', the upstream
 * disabled then), or it completed without recording this job (which followed it only since). Such a fire would
 * otherwise stay listed open, read by every audit, forever. The keeper's pass asks, for the awaiting fires it read;
 * each is written abandoned at the version read, so an upstream completion recorded meanwhile wins.
 */
final class AwaitedUpstreams {

    private static final Logger log = LoggerFactory.getLogger(AwaitedUpstreams.class);
    private final ClientRequests requests;
    private final JobNodes nodes;

    AwaitedUpstreams(ClientRequests requests, JobNodes nodes) {
        this.requests = requests;
        this.nodes = nodes;
    }

    /**
     * The fires as read, those given up now written and shown abandoned. Completes on ZooKeeper's event thread.
     *
     * @param horizon now minus the catch-up horizon ({@link ChainRule#canStillComplete})
     */
    public CompletableFuture<List<FireView>> giveUpStaleAsync(List<FireView> views, Instant horizon) {
        // An item-wise follower's fire holding handed-on items is never given up: they run whatever comes.
        List<FireView> awaiting = views.stream()
                .filter(view -> view.origin().isAwaiting() && view.claims().isEmpty())
                .toList();
        if (awaiting.isEmpty()) {
            return CompletableFuture.completedFuture(views);
        }
        List<Op> reads = new ArrayList<>();
        for (FireView view : awaiting) {
            for (String upstream : view.origin().awaiting()) {
                JobNodes theirs = new JobNodes(upstream);
                reads.add(Op.getData(requests.full(theirs.ledger())));
                reads.add(Op.getData(requests.full(theirs.ledgerFire(view.fireTime()))));
            }
        }
        return requests.multiAsync("Multi", reads).thenCompose(answer -> {
            Iterator<OpResult> read = answer.results().iterator();
            List<FireView> result = new ArrayList<>(views);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (FireView view : awaiting) {
                String stale = staleUpstream(view, read, horizon);
                if (stale != null) {
                    writes.add(giveUp(view, stale, result));
                }
            }
            return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                    .thenApply(done -> result);
        });
    }

    /**
     * The first upstream whose fire at the fire's time can no longer complete, or null; reads two answers per upstream
     * awaited (its ledger node, its fire node).
     */
    private static @Nullable String staleUpstream(FireView view, Iterator<OpResult> read, Instant horizon) {
        String stale = null;
        for (String upstream : view.origin().awaiting()) {
            Watermark mark =
                    read.next() instanceof OpResult.GetDataResult ledger ? Watermark.decode(ledger.getData()) : null;
            String note = read.next() instanceof OpResult.GetDataResult fire
                    ? FireOrigin.read(fire.getData()).note()
                    : null;
            if (stale == null && !ChainRule.canStillComplete(view.fireTime(), mark, note, horizon)) {
                stale = upstream;
            }
        }
        return stale;
    }

    /**
     * Writes the fire abandoned at the version read, and shows it so in {@code result} only once written: refused, an
     * upstream completion changed the fire meanwhile, it stays as read, and a later pass reads it.
     */
    private CompletableFuture<Void> giveUp(FireView view, String stale, List<FireView> result) {
        FireView abandoned = new FireView(
                view.fireTime(),
                view.claims(),
                view.note(),
                view.noteVersion() + 1,
                view.origin().abandonedBy(stale));
        log.info(
                "Job {}: its fire at {} no longer waits for {}, whose fire then cannot complete",
                JobNodes.name(nodes.root()),
                view.fireTime(),
                stale);
        String path = requests.full(nodes.ledgerFire(view.fireTime()));
        return requests.multiAsync(
                        "SetData",
                        List.of(Op.setData(path, abandoned.origin().withNote(view.note()), view.noteVersion())))
                .thenAccept(answer -> {
                    if (answer.ok()) {
                        synchronized (result) {
                            result.set(result.indexOf(view), abandoned);
                        }
                    }
                });
    }
}
