package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * What {@link FireLedger} reads: fires with their claims and notes, one claim, and the live instances. All from the
 * server, never watched or cached: the ledger grows with fires and items, and the live sessions a take-over trusts must
 * not lag behind the registrations. Many nodes are read in one read-only multi-operation rather than a request each.
 * Kept apart so that {@link FireLedger} shows the ledger's writes and their races (who wins a claim, a take-over, a
 * note) without the bookkeeping of batched reads in between.
 */
final class LedgerReads {

    /** Fires per read of their children: a fire of 10,000 items lists about 60 kB of names. */
    private static final int MAX_FIRES_PER_READ = 8;

    private final LedgerRequests requests;

    private final JobNodes nodes;

    LedgerReads(LedgerRequests requests, JobNodes nodes) {
        this.requests = requests;
        this.nodes = nodes;
    }

    /** One claim as stored now, if it exists. */
    Optional<Claim> readClaim(Instant fireTime, int item) throws Exception {
        try {
            Stat stat = new Stat();
            byte[] data = requests.send(
                    "GetData", zooKeeper -> zooKeeper.getData(requests.full(nodes.claim(fireTime, item)), false, stat));
            return Optional.of(Claim.decode(item, fireTime, data, stat));
        } catch (KeeperException.NoNodeException gone) {
            return Optional.empty();
        }
    }

    /** {@link #readClaim}, without waiting: completes on ZooKeeper's event thread. */
    CompletableFuture<Optional<Claim>> readClaimAsync(Instant fireTime, int item) {
        return requests.multiAsync("Multi", List.of(Op.getData(requests.full(nodes.claim(fireTime, item)))))
                .thenApply(answer -> answer.ok() && answer.results().get(0) instanceof OpResult.GetDataResult data
                        ? Optional.of(Claim.decode(item, fireTime, data.getData(), data.getStat()))
                        : Optional.empty());
    }

    /** Every claim of one fire, by item, without waiting: completes on ZooKeeper's event thread. */
    CompletableFuture<Map<Integer, Claim>> claimsOfAsync(Instant fireTime) {
        String fire = requests.full(nodes.ledgerFire(fireTime));
        return requests.multiAsync("Multi", List.of(Op.getChildren(fire))).thenCompose(listing -> {
            if (!listing.ok() || !(listing.results().get(0) instanceof OpResult.GetChildrenResult children)) {
                return CompletableFuture.completedFuture(Map.of());
            }
            List<Integer> items = children.getChildren().stream()
                    .map(Integer::parseInt)
                    .sorted()
                    .toList();
            CompletableFuture<Map<Integer, Claim>> claims = CompletableFuture.completedFuture(new TreeMap<>());
            for (List<Integer> batch : LedgerRequests.batches(items, LedgerRequests.MAX_OPS_PER_MULTI)) {
                List<Op> reads = batch.stream()
                        .map(item -> Op.getData(requests.full(nodes.claim(fireTime, item))))
                        .toList();
                claims = claims.thenCompose(read -> requests.multiAsync("Multi", reads)
                        .thenApply(answer -> {
                            for (int i = 0; i < batch.size(); i++) {
                                if (answer.results().get(i) instanceof OpResult.GetDataResult data) {
                                    read.put(
                                            batch.get(i),
                                            Claim.decode(batch.get(i), fireTime, data.getData(), data.getStat()));
                                }
                            }
                            return read;
                        }));
            }
            return claims;
        });
    }

    /** The fires the ledger holds, oldest first. */
    List<Instant> fires() throws Exception {
        try {
            return requests
                    .send("GetChildren", zooKeeper -> zooKeeper.getChildren(requests.full(nodes.ledger()), false))
                    .stream()
                    .map(Long::parseLong)
                    .sorted()
                    .map(Instant::ofEpochMilli)
                    .toList();
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        }
    }

    /** Every claim of the given fires, in two read-only multi-operations per few fires. Missing fires read empty. */
    List<FireView> read(Collection<Instant> fireTimes) throws Exception {
        List<FireView> views = new ArrayList<>(fireTimes.size());
        for (List<Instant> chunk : LedgerRequests.batches(List.copyOf(fireTimes), MAX_FIRES_PER_READ)) {
            List<Op> listings = new ArrayList<>(chunk.size() * 2);
            chunk.forEach(fireTime -> {
                listings.add(Op.getData(requests.full(nodes.ledgerFire(fireTime))));
                listings.add(Op.getChildren(requests.full(nodes.ledgerFire(fireTime))));
            });
            List<OpResult> children = requests.send("Multi", zooKeeper -> zooKeeper.multi(listings));
            Map<Instant, List<Integer>> items = new LinkedHashMap<>();
            Map<Instant, OpResult.GetDataResult> notes = new LinkedHashMap<>();
            for (int i = 0; i < chunk.size(); i++) {
                if (children.get(2 * i) instanceof OpResult.GetDataResult note) {
                    notes.put(chunk.get(i), note);
                }
                List<Integer> claimed = new ArrayList<>();
                if (children.get(2 * i + 1) instanceof OpResult.GetChildrenResult listing) {
                    for (String name : listing.getChildren()) {
                        claimed.add(Integer.parseInt(name));
                    }
                }
                Collections.sort(claimed);
                items.put(chunk.get(i), claimed);
            }
            Map<Instant, Map<Integer, Claim>> claims = readClaims(items);
            chunk.forEach(fireTime -> {
                OpResult.GetDataResult note = notes.get(fireTime);
                views.add(new FireView(
                        fireTime,
                        claims.get(fireTime),
                        note == null || note.getData() == null
                                ? ""
                                : new String(note.getData(), StandardCharsets.UTF_8),
                        note == null ? -1 : note.getStat().getVersion()));
            });
        }
        return views;
    }

    /** The claims of these items of one fire as stored now, by item, in one read-only multi-operation per batch. */
    Map<Integer, Claim> readClaims(Instant fireTime, List<Integer> items) throws Exception {
        return readClaims(Map.of(fireTime, items)).get(fireTime);
    }

    private Map<Instant, Map<Integer, Claim>> readClaims(Map<Instant, List<Integer>> items) throws Exception {
        List<Instant> fireOf = new ArrayList<>();
        List<Integer> itemOf = new ArrayList<>();
        Map<Instant, Map<Integer, Claim>> claims = new LinkedHashMap<>();
        items.forEach((fireTime, claimed) -> {
            claims.put(fireTime, new TreeMap<>());
            claimed.forEach(item -> {
                fireOf.add(fireTime);
                itemOf.add(item);
            });
        });
        for (int from = 0; from < fireOf.size(); from += LedgerRequests.MAX_OPS_PER_MULTI) {
            int to = Math.min(fireOf.size(), from + LedgerRequests.MAX_OPS_PER_MULTI);
            List<Op> reads = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                reads.add(Op.getData(requests.full(nodes.claim(fireOf.get(i), itemOf.get(i)))));
            }
            List<OpResult> results = requests.send("Multi", zooKeeper -> zooKeeper.multi(reads));
            for (int i = from; i < to; i++) {
                if (results.get(i - from) instanceof OpResult.GetDataResult data) {
                    Claim claim = Claim.decode(itemOf.get(i), fireOf.get(i), data.getData(), data.getStat());
                    claims.get(fireOf.get(i)).put(claim.item(), claim);
                }
            }
        }
        return claims;
    }

    /** The sessions of the instances registered now, after a {@code sync}: see {@link FireLedger#liveSessions()}. */
    Set<Long> liveSessions() throws Exception {
        return Set.copyOf(liveInstances().values());
    }

    /** The instances registered now, each with the session that owns its registration, read as {@link #liveSessions}. */
    Map<String, Long> liveInstances() throws Exception {
        String instances = requests.full(nodes.instances());
        requests.sync(instances);
        List<String> names = requests.send("GetChildren", zooKeeper -> zooKeeper.getChildren(instances, false));
        Map<String, Long> live = new TreeMap<>();
        for (List<String> chunk : LedgerRequests.batches(names, LedgerRequests.MAX_OPS_PER_MULTI)) {
            List<Op> reads = new ArrayList<>(chunk.size());
            chunk.forEach(name -> reads.add(Op.getData(instances + "/" + name)));
            List<OpResult> results = requests.send("Multi", zooKeeper -> zooKeeper.multi(reads));
            for (int i = 0; i < chunk.size(); i++) {
                if (results.get(i) instanceof OpResult.GetDataResult data
                        && data.getStat().getEphemeralOwner() != 0) {
                    live.put(chunk.get(i), data.getStat().getEphemeralOwner());
                }
            }
        }
        return live;
    }
}
