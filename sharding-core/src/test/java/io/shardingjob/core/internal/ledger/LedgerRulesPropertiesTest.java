package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The ledger's rules over thousands of random histories of fires, claims made ahead for the next fire, crashes,
 * restarts, reshards, finishes and audits, played against a model of ZooKeeper's two deciding operations: a create that
 * fails when the node exists, and a write that fails at a stale version. Whatever the history: never two live runs of
 * one item of one fire, and once the cluster is whole again and every owner has audited, no fire forgotten.
 */
class LedgerRulesPropertiesTest {

    private static final Instant T0 = Instant.ofEpochSecond(2_000_000);

    @Property(tries = 2000)
    void neverTwoLiveRunsOfASlotAndNoFireForgotten(
            @ForAll("seeds") long seed,
            @ForAll @IntRange(min = 1, max = 4) int instances,
            @ForAll @IntRange(min = 1, max = 6) int items,
            @ForAll("policies") MisfirePolicy policy,
            @ForAll boolean failover) {
        Cluster cluster = new Cluster(new Random(seed), instances, items, policy, failover);
        for (int step = 0; step < 60; step++) {
            cluster.randomStep();
            assertThat(cluster.slotsRunTwiceAtOnce())
                    .as("slots run twice at once")
                    .isEmpty();
        }
        cluster.healAndSettle();

        assertThat(cluster.slotsRunTwiceAtOnce()).isEmpty();
        assertThat(cluster.forgottenSlots())
                .as("slots neither run nor resolved by the policy")
                .isEmpty();
        // failover off repeats no run that started and was cut, and never stands for "skip an item of a fire".
        assertThat(cluster.failedWithoutAStart())
                .as("slots recorded failed that never started")
                .isEmpty();
        if (policy == MisfirePolicy.ALL) {
            assertThat(cluster.ledger.values()).noneMatch(claim -> claim.state == ClaimState.COALESCED);
        }
    }

    @Property(tries = 2000)
    void aMakeUpPlanCoversEveryLateMissingSlotOnceAndNeverAClaimedOne(
            @ForAll("seeds") long seed, @ForAll("policies") MisfirePolicy policy) {
        Random random = new Random(seed);
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        for (int fire = 0; fire < 1 + random.nextInt(12); fire++) {
            Set<Integer> items = new HashSet<>();
            for (int item = 0; item < 5; item++) {
                if (random.nextBoolean()) {
                    items.add(item);
                }
            }
            claimed.put(T0.plusSeconds(fire), items);
        }
        Instant lateBefore = T0.plusSeconds(random.nextInt(14));
        Instant horizon = T0.plusSeconds(random.nextInt(6));
        List<Integer> mine = List.of(0, 1, 2, 3, 4).stream()
                .filter(item -> random.nextBoolean())
                .toList();

        MakeUpPlan plan = LedgerRules.makeUps(
                claimed, mine, policy, lateBefore, horizon, fire -> FireOrigin.SCHEDULED, slot -> DueRule.Due.YES);

        List<Slot> covered = new ArrayList<>(plan.run());
        covered.addAll(plan.coalesced().keySet());
        covered.addAll(plan.skipped());
        Set<Slot> missing = new HashSet<>();
        claimed.forEach((fireTime, items) -> mine.forEach(item -> {
            if (fireTime.isBefore(lateBefore) && !items.contains(item)) {
                missing.add(new Slot(item, fireTime));
            }
        }));
        assertThat(covered).doesNotHaveDuplicates();
        assertThat(new HashSet<>(covered)).isEqualTo(missing);
        plan.coalesced().forEach((slot, into) -> {
            assertThat(plan.run()).contains(into);
            assertThat(into.item()).isEqualTo(slot.item());
            assertThat(into.fireTime()).isAfter(slot.fireTime());
        });
        if (policy == MisfirePolicy.SKIP) {
            assertThat(plan.run()).isEmpty();
        }
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    @Provide
    Arbitrary<MisfirePolicy> policies() {
        return Arbitraries.of(MisfirePolicy.class);
    }

    /** A model claim: the state ZooKeeper holds for one slot. */
    private static final class ModelClaim {
        long session;
        ClaimState state = ClaimState.RUNNING;
        int version;

        ModelClaim(long session) {
            this.session = session;
        }

        Claim view(Slot slot) {
            return new Claim(
                    slot.item(),
                    slot.fireTime(),
                    "s" + session,
                    session,
                    1,
                    state,
                    ExecutionSource.NORMAL,
                    1,
                    0,
                    0,
                    slot.fireTime(),
                    null,
                    version,
                    0,
                    false,
                    null);
        }
    }

    /** One process: its session while alive, the slots it runs, and the claims it made ahead for the next fire. */
    private static final class Worker {
        long session;
        boolean alive = true;
        final Set<Slot> running = new HashSet<>();
        final Map<Slot, Claim> ahead = new HashMap<>();
    }

    private static final class Cluster {
        final Random random;
        final int items;
        final MisfirePolicy policy;
        final boolean failover;
        final List<Worker> workers = new ArrayList<>();
        /** The slots some run started: its start was written before it ran. */
        final Set<Slot> started = new HashSet<>();

        final Map<Slot, ModelClaim> ledger = new HashMap<>();
        final List<Instant> fires = new ArrayList<>();
        final Map<Integer, Integer> owner = new HashMap<>();
        long nextSession = 1;

        Cluster(Random random, int instances, int items, MisfirePolicy policy, boolean failover) {
            this.random = random;
            this.items = items;
            this.policy = policy;
            this.failover = failover;
            for (int i = 0; i < instances; i++) {
                Worker worker = new Worker();
                worker.session = nextSession++;
                workers.add(worker);
            }
            reshard();
        }

        /** What an audit may read: the ledger as it was after each of the last steps. */
        final List<List<Claim>> snapshots = new ArrayList<>();

        void snapshot() {
            List<Claim> views = new ArrayList<>();
            ledger.forEach((slot, claim) -> views.add(claim.view(slot)));
            snapshots.add(views);
        }

        void randomStep() {
            snapshot();
            int choice = random.nextInt(11);
            Worker worker = workers.get(random.nextInt(workers.size()));
            switch (choice) {
                case 0, 1, 2 -> fire();
                case 3 -> crash(worker);
                case 4 -> restart(worker);
                case 5 -> reshard();
                case 6, 7 -> finishSome(worker);
                case 8 -> claimAhead(worker);
                default -> audit(worker);
            }
        }

        Set<Integer> ownedBy(Worker worker) {
            Set<Integer> owned = new HashSet<>();
            owner.forEach((item, index) -> {
                if (workers.get(index) == worker) {
                    owned.add(item);
                }
            });
            return owned;
        }

        /**
         * With the ends of a fire: the claims of the next fire, for the owned items not running here; with failover on,
         * their starts written with them.
         */
        void claimAhead(Worker worker) {
            if (!worker.alive) {
                return;
            }
            Instant next = T0.plusSeconds(fires.size());
            Set<Integer> unavailable = new HashSet<>();
            worker.running.forEach(slot -> unavailable.add(slot.item()));
            worker.ahead.keySet().forEach(slot -> unavailable.add(slot.item()));
            for (int item : ClaimsAheadRule.toClaimAhead(ownedBy(worker), unavailable, false)) {
                Slot slot = new Slot(item, next);
                if (!ledger.containsKey(slot)) {
                    ModelClaim reserved = new ModelClaim(worker.session);
                    reserved.state = StartBatch.writesAhead(failover) ? ClaimState.RUNNING : ClaimState.RESERVED;
                    ledger.put(slot, reserved);
                    worker.ahead.put(slot, ledger.get(slot).view(slot));
                }
            }
        }

        void fire() {
            Instant fireTime = T0.plusSeconds(fires.size());
            fires.add(fireTime);
            // Every live worker's trigger takes the claims it made ahead for this fire, whatever it owns now.
            for (Worker worker : workers) {
                Set<Integer> owned = ownedBy(worker);
                for (Slot slot : new ArrayList<>(worker.ahead.keySet())) {
                    if (!slot.fireTime().equals(fireTime)) {
                        continue;
                    }
                    Claim claim = worker.ahead.remove(slot);
                    boolean startable = worker.running.stream().noneMatch(other -> other.item() == slot.item());
                    switch (ClaimsAheadRule.atFire(
                            claim, worker.session, worker.alive, false, owned, Set.of(), startable, DueRule.Due.YES)) {
                        case RUN -> {
                            // The start is written at the version made ahead: refused once the claim was taken over.
                            // Made with its start, the run begins with no write: only the end of this worker's session
                            // lets another take the claim over, and a worker that lost its session is left to audit.
                            ModelClaim stored = ledger.get(slot);
                            if (claim.state() == ClaimState.RUNNING) {
                                start(worker, slot);
                            } else if (stored.version == claim.version()) {
                                stored.state = ClaimState.RUNNING;
                                stored.version++;
                                start(worker, slot);
                            }
                        }
                        case RELEASE -> {
                            ModelClaim stored = ledger.get(slot);
                            if (stored.version == claim.version()) {
                                // Handed on unstarted, as ClaimsAhead writes it.
                                stored.state = ClaimState.HANDED_ON;
                                stored.version++;
                            }
                        }
                        default -> {
                            // Left to the audit, as any claim of this session it does not run.
                        }
                    }
                }
            }
            for (int item = 0; item < items; item++) {
                Worker worker = workers.get(owner.get(item));
                // A busy, cut-off or slow owner misses the fire: audits must find the slot.
                if (worker.alive && random.nextInt(4) != 0) {
                    create(worker, new Slot(item, fireTime));
                }
            }
        }

        void create(Worker worker, Slot slot) {
            if (!ledger.containsKey(slot)) {
                ledger.put(slot, new ModelClaim(worker.session));
                start(worker, slot);
            }
        }

        void start(Worker worker, Slot slot) {
            worker.running.add(slot);
            started.add(slot);
        }

        List<Slot> failedWithoutAStart() {
            return ledger.entrySet().stream()
                    .filter(entry -> entry.getValue().state == ClaimState.FAILED && !started.contains(entry.getKey()))
                    .map(Map.Entry::getKey)
                    .toList();
        }

        void crash(Worker worker) {
            worker.alive = false;
            worker.running.clear();
            worker.ahead.clear();
        }

        void restart(Worker worker) {
            if (!worker.alive) {
                worker.alive = true;
                worker.session = nextSession++;
            }
        }

        void reshard() {
            List<Integer> alive = new ArrayList<>();
            for (int i = 0; i < workers.size(); i++) {
                if (workers.get(i).alive) {
                    alive.add(i);
                }
            }
            for (int item = 0; item < items; item++) {
                owner.put(
                        item,
                        alive.isEmpty() ? random.nextInt(workers.size()) : alive.get(random.nextInt(alive.size())));
            }
        }

        void finishSome(Worker worker) {
            for (Slot slot : new ArrayList<>(worker.running)) {
                if (random.nextBoolean()) {
                    ModelClaim claim = ledger.get(slot);
                    // The owner's write at the version it holds: refused if the claim moved on.
                    if (claim.session == worker.session && claim.state == ClaimState.RUNNING) {
                        claim.state = random.nextInt(5) == 0 ? ClaimState.FAILED : ClaimState.DONE;
                        claim.version++;
                    }
                    worker.running.remove(slot);
                }
            }
        }

        void audit(Worker worker) {
            if (!worker.alive) {
                return;
            }
            Set<Long> live = workers.stream()
                    .filter(other -> other.alive)
                    .map(other -> other.session)
                    .collect(Collectors.toSet());
            Set<Integer> owned = ownedBy(worker);
            // Audits act on a read that may be several steps old: ZooKeeper, not the read, must decide every race. They
            // look only at fires that came: claims made ahead for a fire to come are nobody's business before it.
            Instant due = T0.plusSeconds(fires.size());
            List<Claim> views = snapshots.get(Math.max(0, snapshots.size() - 1 - random.nextInt(4))).stream()
                    .filter(claim -> claim.fireTime().isBefore(due))
                    .toList();
            Set<Slot> busy = new HashSet<>(worker.running);
            busy.addAll(worker.ahead.keySet());
            Map<String, Long> liveInstances = new HashMap<>();
            live.forEach(session -> liveInstances.put("s" + session, session));
            for (Claim orphan : TakeOverRule.toTakeOver(views, liveInstances, owned, true)) {
                ModelClaim claim = ledger.get(new Slot(orphan.item(), orphan.fireTime()));
                if (claim.version == orphan.version()) {
                    claim.version++;
                    if (TakeOverRule.runsOrphan(orphan, failover)) {
                        claim.session = worker.session;
                        claim.state = ClaimState.RUNNING;
                        start(worker, new Slot(orphan.item(), orphan.fireTime()));
                    } else {
                        claim.state = ClaimState.FAILED;
                    }
                }
            }
            for (Claim stranded : TakeOverRule.strandedOwn(views, worker.session, busy)) {
                Slot slot = new Slot(stranded.item(), stranded.fireTime());
                ModelClaim now = ledger.get(slot);
                // Re-read with the item reserved: the run that held it may have ended since the read.
                if (now.session == worker.session && now.state.isHeld() && !worker.running.contains(slot)) {
                    now.state = ClaimState.RUNNING;
                    now.version++;
                    start(worker, slot);
                }
            }
            SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
            fires.forEach(fireTime -> claimed.put(fireTime, new HashSet<>()));
            views.forEach(claim -> claimed.computeIfAbsent(claim.fireTime(), fireTime -> new HashSet<>())
                    .add(claim.item()));
            Instant lateBefore = T0.plusSeconds(fires.size());
            MakeUpPlan plan = LedgerRules.makeUps(
                    claimed, owned, policy, lateBefore, T0, fire -> FireOrigin.SCHEDULED, slot -> DueRule.Due.YES);
            plan.coalesced().keySet().forEach(slot -> resolve(worker, slot, ClaimState.COALESCED));
            plan.skipped().forEach(slot -> resolve(worker, slot, ClaimState.SKIPPED));
            plan.run().forEach(slot -> create(worker, slot));
        }

        void resolve(Worker worker, Slot slot, ClaimState state) {
            if (!ledger.containsKey(slot)) {
                ModelClaim claim = new ModelClaim(worker.session);
                claim.state = state;
                ledger.put(slot, claim);
            }
        }

        void healAndSettle() {
            workers.forEach(this::restart);
            reshard();
            for (int round = 0; round < 3; round++) {
                workers.forEach(worker -> {
                    snapshots.clear();
                    snapshot();
                    audit(worker);
                });
                workers.forEach(worker -> {
                    while (!worker.running.isEmpty()) {
                        finishSome(worker);
                    }
                });
            }
        }

        /** Slots that two live workers run at once, each believing the claim is its own. */
        Set<Slot> slotsRunTwiceAtOnce() {
            Map<Slot, Integer> runners = new HashMap<>();
            workers.stream()
                    .filter(worker -> worker.alive)
                    .forEach(worker -> worker.running.forEach(slot -> runners.merge(slot, 1, Integer::sum)));
            return runners.entrySet().stream()
                    .filter(entry -> entry.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .collect(Collectors.toSet());
        }

        /** Slots of fires that have no claim, or whose claim is still open after the cluster settled. */
        List<Slot> forgottenSlots() {
            List<Slot> forgotten = new ArrayList<>();
            for (Instant fireTime : fires) {
                for (int item = 0; item < items; item++) {
                    Slot slot = new Slot(item, fireTime);
                    ModelClaim claim = ledger.get(slot);
                    if (claim == null || claim.state.isOpen()) {
                        forgotten.add(slot);
                    }
                }
            }
            return forgotten;
        }
    }
}
