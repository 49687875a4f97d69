package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;

/**
 * What audits, the keeper and operators read of one job's ledger: fires with their claims and notes, one claim. All
 * from the server, never watched or cached: the ledger grows with fires and items. Many nodes are read in one
 * read-only multi-operation rather than a request each. The writes that decide who runs what are {@link ClaimWrites}.
 */
public final class LedgerReads {

    /**
     * Fires per read of their data and children, which one answer under {@code jute.maxbuffer} must hold: a fire of
     * 10,000 items lists about 79 kB of names (each with its length), and a fire's data, escaped, at most twice the
     * largest job parameter a trigger may give ({@code OperatorInputs.MAX_JOB_PARAMETER_BYTES}, 16 KiB): eight such
     * fires take about 0.9 MB. Raise neither without the other.
     */
    public static final int MAX_FIRES_PER_READ = 8;

    private final ClientRequests requests;
    private final JobNodes nodes;

    /** The fires the latest overview listed, -1 before one: what the coordination budget measures, at no request. */
    private volatile int listedFires = -1;

    LedgerReads(ClientRequests requests, JobNodes nodes) {
        this.requests = requests;
        this.nodes = nodes;
    }

    /** One claim as stored now, if it exists, without waiting: completes on ZooKeeper's event thread. */
    public CompletableFuture<Optional<Claim>> readClaimAsync(Instant fireTime, int item) {
        return requests.multiAsync("Multi", List.of(Op.getData(requests.full(nodes.claim(fireTime, item)))))
                .thenApply(answer -> answer.ok() && answer.results().get(0) instanceof OpResult.GetDataResult data
                        ? Optional.of(Claim.decode(item, fireTime, data.getData(), data.getStat()))
                        : Optional.empty());
    }

    /**
     * Leaves a watch on the claim as it was read: {@code changed} is told once when it is written again or goes (its
     * run's end, a hand-over, a take-over, its fire's retirement). Completes with whether it was still as read when the
     * watch was left; when it was not, the change came before and no watch tells of it.
     */
    public CompletableFuture<Boolean> watchAsync(Claim claim, Watcher changed) {
        return requests.watchAsync(requests.full(nodes.claim(claim.fireTime(), claim.item())), changed)
                .thenApply(stat -> stat != null && stat.getVersion() == claim.version());
    }

    /** Every claim of one fire, by item, without waiting: completes on ZooKeeper's event thread. */
    CompletableFuture<Map<Integer, Claim>> claimsOfAsync(Instant fireTime) {
        String fire = requests.full(nodes.ledgerFire(fireTime));
        return requests.multiAsync("Multi", List.of(Op.getChildren(fire)))
                .thenCompose(listing -> listing.ok()
                        ? readClaimsAsync(
                                        Map.of(fireTime, items(listing.results().get(0))))
                                .thenApply(claims -> claims.get(fireTime))
                        : CompletableFuture.completedFuture(Map.of()));
    }

    private static List<Instant> fireTimes(OpResult listing) {
        return listing instanceof OpResult.GetChildrenResult children
                ? children.getChildren().stream()
                        .map(Long::parseLong)
                        .sorted()
                        .map(Instant::ofEpochMilli)
                        .toList()
                : List.of();
    }

    /**
     * Every claim of the given fires, in two read-only multi-operations per few fires, without waiting: completes on
     * ZooKeeper's event thread. Missing fires read empty.
     */
    public CompletableFuture<List<FireView>> readAsync(Collection<Instant> fireTimes) {
        return inTurn(ClientRequests.batches(List.copyOf(fireTimes), MAX_FIRES_PER_READ), this::readChunk);
    }

    /** One request per batch, each after the one before, their answers gathered in order. */
    private static <T, R> CompletableFuture<List<R>> inTurn(
            List<List<T>> batches, Function<List<T>, CompletableFuture<List<R>>> request) {
        CompletableFuture<List<R>> answers = CompletableFuture.completedFuture(new ArrayList<>());
        for (List<T> batch : batches) {
            answers = answers.thenCompose(sofar -> request.apply(batch).thenApply(more -> {
                sofar.addAll(more);
                return sofar;
            }));
        }
        return answers;
    }

    /** The items that hold a claim in each fire, by fire, listed a few fires per read-only multi-operation. */
    public CompletableFuture<Map<Instant, List<Integer>>> itemsAsync(Collection<Instant> fireTimes) {
        CompletableFuture<Map<Instant, List<Integer>>> items = CompletableFuture.completedFuture(new TreeMap<>());
        for (List<Instant> chunk : ClientRequests.batches(List.copyOf(fireTimes), MAX_FIRES_PER_READ)) {
            List<Op> listings = chunk.stream()
                    .map(fireTime -> Op.getChildren(requests.full(nodes.ledgerFire(fireTime))))
                    .toList();
            items = items.thenCompose(listed -> requests.multiAsync("Multi", listings)
                    .thenApply(answer -> {
                        for (int i = 0; i < chunk.size(); i++) {
                            listed.put(chunk.get(i), items(answer.results().get(i)));
                        }
                        return listed;
                    }));
        }
        return items;
    }

    /** The items a fire node's listing names, in order: those with a claim. */
    static List<Integer> items(OpResult listing) {
        return listing instanceof OpResult.GetChildrenResult children
                ? children.getChildren().stream()
                        .map(Integer::parseInt)
                        .sorted()
                        .toList()
                : List.of();
    }

    private CompletableFuture<List<FireView>> readChunk(List<Instant> chunk) {
        List<Op> listings = new ArrayList<>(chunk.size() * 2);
        chunk.forEach(fireTime -> {
            listings.add(Op.getData(requests.full(nodes.ledgerFire(fireTime))));
            listings.add(Op.getChildren(requests.full(nodes.ledgerFire(fireTime))));
        });
        return requests.multiAsync("Multi", listings).thenCompose(answer -> {
            List<OpResult> children = answer.results();
            Map<Instant, List<Integer>> items = new LinkedHashMap<>();
            Map<Instant, OpResult.GetDataResult> notes = new LinkedHashMap<>();
            for (int i = 0; i < chunk.size(); i++) {
                if (children.get(2 * i) instanceof OpResult.GetDataResult note) {
                    notes.put(chunk.get(i), note);
                }
                items.put(chunk.get(i), items(children.get(2 * i + 1)));
            }
            return readClaimsAsync(items)
                    .thenApply(claims -> chunk.stream()
                            .map(fireTime -> {
                                OpResult.GetDataResult note = notes.get(fireTime);
                                FireOrigin.NodeData data = FireOrigin.read(note == null ? null : note.getData());
                                return new FireView(
                                        fireTime,
                                        claims.get(fireTime),
                                        data.note(),
                                        note == null ? -1 : note.getStat().getVersion(),
                                        data.origin());
                            })
                            .toList());
        });
    }

    private CompletableFuture<Map<Instant, Map<Integer, Claim>>> readClaimsAsync(Map<Instant, List<Integer>> items) {
        List<Slot> slots = new ArrayList<>();
        items.forEach((fireTime, claimed) -> claimed.forEach(item -> slots.add(new Slot(item, fireTime))));
        return inTurn(ClientRequests.batches(slots, ClientRequests.MAX_OPS_PER_MULTI), this::readClaims)
                .thenApply(read -> {
                    Map<Instant, Map<Integer, Claim>> claims = new LinkedHashMap<>();
                    items.keySet().forEach(fireTime -> claims.put(fireTime, new TreeMap<>()));
                    read.forEach(claim -> claims.get(claim.fireTime()).put(claim.item(), claim));
                    return claims;
                });
    }

    /** The claims of these slots that exist. */
    private CompletableFuture<List<Claim>> readClaims(List<Slot> slots) {
        List<Op> reads = slots.stream()
                .map(slot -> Op.getData(requests.full(nodes.claim(slot.fireTime(), slot.item()))))
                .toList();
        return requests.multiAsync("Multi", reads).thenApply(answer -> {
            List<Claim> claims = new ArrayList<>();
            for (int i = 0; i < slots.size(); i++) {
                if (answer.results().get(i) instanceof OpResult.GetDataResult data) {
                    Slot slot = slots.get(i);
                    claims.add(Claim.decode(slot.item(), slot.fireTime(), data.getData(), data.getStat()));
                }
            }
            return claims;
        });
    }

    /** Whether another session's run, as an audit saw it, is still running now; when unknown, it is. */
    public boolean stillRuns(Claim other) {
        try {
            return ClientRequests.await(readClaimAsync(other.fireTime(), other.item()))
                    .filter(now -> now.state().isHeld() && now.sessionId() == other.sessionId())
                    .isPresent();
        } catch (Exception unreachable) {
            return true;
        }
    }

    /** The fires the ledger holds, oldest first. */
    public List<Instant> fires() throws Exception {
        return ClientRequests.await(
                requests.multiAsync("GetChildren", List.of(Op.getChildren(requests.full(nodes.ledger()))))
                        .thenApply(answer -> fireTimes(answer.results().get(0))));
    }

    /** Every claim of the given fires, in two read-only multi-operations per few fires. Missing fires read empty. */
    public List<FireView> read(Collection<Instant> fireTimes) throws Exception {
        return ClientRequests.await(readAsync(fireTimes));
    }

    /**
     * Whether the job's reshard flag is up in ZooKeeper, read with the client's other jobs' reads of the moment (the
     * leader's periodic pass looks for it even when its cache shows none; a thousand jobs' looks cost a request).
     * Completes on ZooKeeper's event thread.
     */
    public CompletableFuture<Boolean> reshardFlaggedAsync() {
        return requests.multiAsync("Multi", List.of(Op.getData(requests.full(nodes.reshardNecessary()))))
                .thenApply(answer -> answer.results().get(0) instanceof OpResult.GetDataResult);
    }

    /** The fires the latest overview listed in the job's ledger, -1 before one was read. */
    public int listedFires() {
        return listedFires;
    }

    /** The write operations the job's ledger asked for so far: claims, starts, ends, fire nodes, deletions. */
    public long writeOperations() {
        return requests.writeOperations();
    }

    /** The watermark and the fires, in one read-only multi-operation. */
    public LedgerOverview overview() throws Exception {
        return ClientRequests.await(overviewAsync());
    }

    /** {@link #overview}, without waiting: completes on ZooKeeper's event thread. */
    public CompletableFuture<LedgerOverview> overviewAsync() {
        String ledger = requests.full(nodes.ledger());
        return requests.multiAsync("Multi", List.of(Op.getData(ledger), Op.getChildren(ledger)))
                .thenApply(answer -> {
                    List<OpResult> results = answer.results();
                    OpResult.GetDataResult data = results.get(0) instanceof OpResult.GetDataResult read ? read : null;
                    Watermark mark = Watermark.decode(data != null ? data.getData() : null);
                    List<Instant> fires = fireTimes(results.get(1));
                    if (results.get(1) instanceof OpResult.GetChildrenResult) {
                        listedFires = fires.size();
                    }
                    return new LedgerOverview(
                            mark.settled(),
                            fires,
                            mark.stillOpen(),
                            data != null ? data.getStat().getVersion() : -1);
                });
    }
}
