package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.TakeOverRule;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-only views of one job's ledger for operators: open claims, take-overs, orphans and running items. Each reads the
 * unsettled fires from ZooKeeper (a few requests) and judges liveness by the sessions in the cache, which is good enough
 * for display and never used to decide a take-over; fires never call these.
 */
public final class LedgerQueries {

    private static final Logger log = LoggerFactory.getLogger(LedgerQueries.class);
    private final LedgerReads ledger;
    private final JobCache cache;
    private final JobNodes nodes;
    private final String jobName;
    private final Supplier<Instant> clock;

    LedgerQueries(LedgerReads ledger, JobCache cache, JobNodes nodes, String jobName, Supplier<Instant> clock) {
        this.ledger = ledger;
        this.cache = cache;
        this.nodes = nodes;
        this.jobName = jobName;
        this.clock = clock;
    }

    /** The fires the latest audit listed in the job's ledger, -1 before one has: read at no request. */
    public int listedFires() {
        return ledger.listedFires();
    }

    /** The write operations this instance's ledger of the job asked for so far. */
    public long writeOperations() {
        return ledger.writeOperations();
    }

    /** What the ledger holds for the fires that are not settled yet: claims running, orphaned or taken over. */
    public List<Claim> openClaims() {
        try {
            // Claims of fires to come were made ahead: nothing runs for them yet.
            return ledger.read(ledger.overview().toRead(clock.get())).stream()
                    .flatMap(view -> view.claims().values().stream())
                    .filter(claim -> claim.state().isOpen())
                    .toList();
        } catch (Exception ex) {
            log.debug("Job {}: could not read the ledger: {}", jobName, ex.toString());
            return List.of();
        }
    }

    /**
     * The latest fires the ledger holds, newest first, with every claim; fires to come (claimed ahead) and nodes only
     * created ahead of a fire that never came are left out, since nothing ran for them.
     */
    public List<LedgerFire> recentFires(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be 1 or more, was " + limit);
        }
        try {
            Instant now = clock.get();
            List<Instant> past = ledger.fires().stream()
                    .filter(fireTime -> !fireTime.isAfter(now))
                    .sorted(Comparator.reverseOrder())
                    .limit(limit)
                    .toList();
            Set<Long> live = cachedLiveSessions();
            return ledger.read(past).stream()
                    .filter(view -> !view.isAheadOnly())
                    .sorted(Comparator.comparing(FireView::fireTime).reversed())
                    .map(view -> describe(view, live))
                    .toList();
        } catch (Exception ex) {
            log.debug("Job {}: could not read the ledger: {}", jobName, ex.toString());
            return List.of();
        }
    }

    private static LedgerFire describe(FireView view, Set<Long> live) {
        List<LedgerFire.Item> items = view.claims().values().stream()
                .sorted(Comparator.comparingInt(Claim::item))
                .map(claim -> new LedgerFire.Item(
                        claim.item(),
                        claim.state(),
                        claim.instanceId(),
                        live.contains(claim.sessionId()),
                        claim.source(),
                        claim.attempt(),
                        claim.retry(),
                        claim.fencingToken(),
                        claim.started(),
                        claim.ended(),
                        claim.checkpoint()))
                .toList();
        return new LedgerFire(
                view.fireTime(),
                view.isSettled(),
                items,
                view.origin().after(),
                view.origin().awaiting(),
                view.origin().abandonedBy());
    }

    private Set<Long> cachedLiveSessions() {
        return cache.children(nodes.instances()).stream()
                .flatMap(instance -> cache.node(nodes.instance(instance)).stream())
                .map(node -> node.getStat().getEphemeralOwner())
                .collect(Collectors.toSet());
    }

    /** Items running now for a fire whose owner took them over from another instance, with the instance running each. */
    public Map<Integer, String> failoverOwners() {
        return runningOwners(claim -> claim.attempt() > 1);
    }

    /** Items with an orphaned claim (its owner gone or gone away) that no instance has taken over yet. */
    public List<Integer> failoverQueue() {
        Set<Long> live = cachedLiveSessions();
        return openClaims().stream()
                .filter(claim -> TakeOverRule.isGivenUp(claim) || !live.contains(claim.sessionId()))
                .map(Claim::item)
                .distinct()
                .sorted()
                .toList();
    }

    /** Item to the last checkpoint of its open claim, for the items whose open claim carries one. */
    public Map<Integer, String> checkpoints() {
        return openClaims().stream()
                .filter(claim -> claim.checkpoint() != null)
                .sorted(Comparator.comparing(Claim::fireTime))
                .collect(Collectors.toMap(Claim::item, Claim::checkpoint, (earlier, later) -> later, TreeMap::new));
    }

    public List<Integer> runningItems() {
        return List.copyOf(runningOwners().keySet());
    }

    public Map<Integer, String> runningOwners() {
        return runningOwners(claim -> true);
    }

    private Map<Integer, String> runningOwners(Predicate<Claim> which) {
        Set<Long> live = cachedLiveSessions();
        return openClaims().stream()
                .filter(claim -> claim.state() == ClaimState.RUNNING && live.contains(claim.sessionId()))
                .filter(which)
                .collect(Collectors.toMap(Claim::item, Claim::instanceId, (earlier, later) -> later, TreeMap::new));
    }
}
