package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Claims under an outdated assignment, over random histories: live instances that learn of reshards late (their cache
 * may skip assignments), read the ledger as a follower serves it (every write up to some point of ZooKeeper's order,
 * never one after a gap), plan fires and start queued runs only for items their audits cleared (the audit of the
 * assignment they see, or of the one just before when the item stayed theirs), and start runs with a write guarded by
 * the assignment's version ({@link AssignmentGuard}), decided again under the next assignment when exactly one was
 * written since. Whatever the order, no item runs on two instances at once, for any fires; without the guard, some
 * history runs one twice.
 */
class AssignmentGuardPropertiesTest {

    @Property(tries = 3000)
    void noItemEverRunsOnTwoLiveInstancesAtOnceWhenEveryStartIsGuarded(
            @ForAll long seed,
            @ForAll @IntRange(min = 2, max = 3) int instances,
            @ForAll @IntRange(min = 1, max = 3) int items) {
        Cluster cluster = new Cluster(new Random(seed), instances, items, true, true);
        for (int step = 0; step < 80; step++) {
            cluster.randomStep();
            assertThat(cluster.itemsRunningTwice())
                    .as("items running on two instances")
                    .isEmpty();
        }
    }

    @Test
    void withoutTheGuardAnInstanceThatLearnsOfAReshardLateRunsAnItemBesideItsNewOwner() {
        assertThat(someHistoryRunsAnItemTwice(false, true))
                .as("an overlap the guard prevents")
                .isTrue();
    }

    @Test
    void withoutTheAuditsClearingAQueuedRunAnInstanceWhoseCacheSkippedAnAssignmentRunsAnItemBesideItsOtherOwner() {
        assertThat(someHistoryRunsAnItemTwice(true, false))
                .as("an overlap the audits' clearing prevents")
                .isTrue();
    }

    /** Whether one of the first seeds' histories of two instances and one item runs it on both at once. */
    private static boolean someHistoryRunsAnItemTwice(boolean guarded, boolean auditCleared) {
        for (long seed = 0; seed < 20_000; seed++) {
            Cluster cluster = new Cluster(new Random(seed), 2, 1, guarded, auditCleared);
            for (int step = 0; step < 80; step++) {
                cluster.randomStep();
                if (!cluster.itemsRunningTwice().isEmpty()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One claim as ZooKeeper holds it. */
    private record Stored(int instance, ClaimState state, int version) {}

    /** One write, in ZooKeeper's order. */
    private record Write(String key, Stored claim, int assignmentVersion, Map<Integer, Integer> owners) {}

    private static final class Instance {
        final int id;
        /** How far into ZooKeeper's order this instance's server has applied writes. */
        int readUpTo;

        int seenVersion;
        Map<Integer, Integer> seenOwners = new HashMap<>();
        /** The assignment version its last audit read the ledger under, the items it owned then, and what it found held elsewhere. */
        int auditedVersion = -1;

        Set<Integer> auditedOwned = new HashSet<>();

        Set<Integer> elsewhere = new HashSet<>();
        /** Claims it holds and has not started: waiting in its item pool. */
        final List<String> queued = new ArrayList<>();

        final Set<String> running = new HashSet<>();

        Instance(int id) {
            this.id = id;
        }
    }

    private static final class Cluster {
        final Random random;
        final int items;
        final boolean guarded;
        /**
         * Whether starts ask the audits, as {@code LocalExecutions.mayStart} does: otherwise the rule before issue 22's
         * fix, where a queued run started on ownership alone and an audit of any earlier assignment cleared an item.
         */
        final boolean auditCleared;

        final List<Instance> instances = new ArrayList<>();
        /** Every write, in ZooKeeper's order; the state is the last write of each key. */
        final List<Write> log = new ArrayList<>();

        final Map<String, Stored> ledger = new HashMap<>();
        int version;
        Map<Integer, Integer> owners = new HashMap<>();
        int fires;

        Cluster(Random random, int instances, int items, boolean guarded, boolean auditCleared) {
            this.random = random;
            this.items = items;
            this.guarded = guarded;
            this.auditCleared = auditCleared;
            for (int i = 0; i < instances; i++) {
                this.instances.add(new Instance(i));
            }
            reshard();
            this.instances.forEach(this::learn);
        }

        void randomStep() {
            Instance instance = instances.get(random.nextInt(instances.size()));
            switch (random.nextInt(7)) {
                case 0 -> reshard();
                case 1 -> learn(instance);
                case 2 -> audit(instance);
                case 3 -> fire();
                case 4, 5 -> startOne(instance);
                default -> finishOne(instance);
            }
        }

        void reshard() {
            version++;
            Map<Integer, Integer> next = new HashMap<>();
            for (int item = 0; item < items; item++) {
                next.put(item, random.nextInt(instances.size()));
            }
            owners = next;
            log.add(new Write(null, null, version, Map.copyOf(next)));
        }

        /** Its server catches up to some later point of the order, and it sees the assignment there. */
        void learn(Instance instance) {
            instance.readUpTo = instance.readUpTo + random.nextInt(log.size() - instance.readUpTo + 1);
            for (int i = instance.readUpTo - 1; i >= 0; i--) {
                Write write = log.get(i);
                if (write.key() == null) {
                    instance.seenVersion = write.assignmentVersion();
                    instance.seenOwners = write.owners();
                    break;
                }
            }
        }

        /** Reads the ledger as its server holds it, and notes its items that another instance holds. */
        void audit(Instance instance) {
            Map<String, Stored> read = new HashMap<>();
            for (int i = 0; i < instance.readUpTo; i++) {
                Write write = log.get(i);
                if (write.key() != null) {
                    read.put(write.key(), write.claim());
                }
            }
            instance.elsewhere.clear();
            read.forEach((key, claim) -> {
                int item = itemOf(key);
                boolean held = claim.state() == ClaimState.RESERVED || claim.state() == ClaimState.RUNNING;
                if (held && claim.instance() != instance.id && owns(instance, item)) {
                    instance.elsewhere.add(item);
                }
            });
            instance.auditedVersion = instance.seenVersion;
            instance.auditedOwned.clear();
            instance.seenOwners.forEach((item, owner) -> {
                if (owner == instance.id) {
                    instance.auditedOwned.add(item);
                }
            });
        }

        /**
         * Whether its audits cleared the item to start under the assignment of {@code version}: as
         * {@code LocalExecutions.mayStart} decides (a fire whose wait for the audit timed out relies on the second
         * case).
         */
        boolean cleared(Instance instance, int item, int version) {
            if (!auditCleared) {
                return !instance.elsewhere.contains(item)
                        && (instance.auditedVersion == version || instance.auditedOwned.contains(item));
            }
            return !instance.elsewhere.contains(item)
                    && (instance.auditedVersion == version
                            || (instance.auditedVersion == version - 1 && instance.auditedOwned.contains(item)));
        }

        /** Every instance plans the fire under the assignment it saw, for the items its audits cleared. */
        void fire() {
            int fire = fires++;
            for (Instance instance : instances) {
                for (int item = 0; item < items; item++) {
                    String key = item + "@" + fire;
                    if (owns(instance, item)
                            && cleared(instance, item, instance.seenVersion)
                            && !ledger.containsKey(key)) {
                        write(key, new Stored(instance.id, ClaimState.RESERVED, 0));
                        instance.queued.add(key);
                    }
                }
            }
        }

        /** A queued run leaves the pool's queue: the rule, then the start write, guarded or not. */
        void startOne(Instance instance) {
            if (instance.queued.isEmpty()) {
                return;
            }
            String key = instance.queued.remove(random.nextInt(instance.queued.size()));
            int item = itemOf(key);
            Stored claim = ledger.get(key);
            boolean mayStart = owns(instance, item)
                    && (!auditCleared || cleared(instance, item, instance.seenVersion))
                    && claim.instance() == instance.id;
            boolean guardHolds = !guarded || instance.seenVersion == version;
            if (mayStart && !guardHolds && version == instance.seenVersion + 1) {
                // Refused: decided again under the assignment read now, as exactly one was written since.
                guardHolds = owners.getOrDefault(item, -1) == instance.id && cleared(instance, item, version);
            }
            if (mayStart && guardHolds && claim.state() == ClaimState.RESERVED) {
                write(key, new Stored(instance.id, ClaimState.RUNNING, claim.version() + 1));
                instance.running.add(key);
            } else if (claim.instance() == instance.id && claim.state() == ClaimState.RESERVED) {
                write(key, new Stored(instance.id, ClaimState.HANDED_ON, claim.version() + 1));
            }
        }

        void finishOne(Instance instance) {
            if (instance.running.isEmpty()) {
                return;
            }
            String key = instance.running.iterator().next();
            instance.running.remove(key);
            Stored claim = ledger.get(key);
            write(key, new Stored(instance.id, ClaimState.DONE, claim.version() + 1));
        }

        Set<Integer> itemsRunningTwice() {
            Map<Integer, Set<Integer>> runners = new HashMap<>();
            instances.forEach(instance ->
                    instance.running.forEach(key -> runners.computeIfAbsent(itemOf(key), item -> new HashSet<>())
                            .add(instance.id)));
            Set<Integer> twice = new HashSet<>();
            runners.forEach((item, on) -> {
                if (on.size() > 1) {
                    twice.add(item);
                }
            });
            return twice;
        }

        private boolean owns(Instance instance, int item) {
            return instance.seenOwners.getOrDefault(item, -1) == instance.id;
        }

        private void write(String key, Stored claim) {
            ledger.put(key, claim);
            log.add(new Write(key, claim, version, owners));
        }

        private static int itemOf(String key) {
            return Integer.parseInt(key.substring(0, key.indexOf('@')));
        }
    }
}
