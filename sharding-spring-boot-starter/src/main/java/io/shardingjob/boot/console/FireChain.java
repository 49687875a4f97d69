package io.shardingjob.boot.console;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One fire down its chain of jobs: for a job and a fire time T, every job it follows and every job following it
 * (transitively), each with its own fire at T (a follower fires with its upstream's fire time, so the whole chain shares
 * T), its items' states, and, when it has no fire at T or its fire waits, why. A pure function of the followers of each
 * job ({@link io.shardingjob.core.StoredJobs#followers}), the configurations and each job's recent fires in the
 * ledger, tested as a table.
 */
final class FireChain {

    private FireChain() {}

    /** How one item of a job's fire at T stands. */
    enum ItemState {
        SUCCEEDED,
        FAILED,
        RUNNING,
        /** Not started, or waiting for an owner: reserved, released, handed on, or its owner is gone. */
        NOT_YET,
        /** It does not run for T: skipped, or folded into a later run. */
        SKIPPED
    }

    /** One item of a job's fire at T, with the instance that holds its claim (null when nobody claimed it yet). */
    record Item(int item, ItemState state, @Nullable String instance) {}

    /**
     * One job of the chain.
     *
     * @param layer where the job stands in the chain: 0 for a job that follows none
     * @param known whether it is a job of the application, rather than an upstream known only by name
     * @param after the jobs it follows
     * @param on which of their fires it follows, {@code null} for a job that follows none
     * @param itemWise whether its items follow the upstream's one by one
     * @param fired whether the ledger holds a fire of the job at T
     * @param items its items at T, each of them when it fired; empty when it did not
     * @param why why it did not fire for T, or why its fire waits; {@code null} when neither
     */
    record Row(
            String job,
            int layer,
            boolean known,
            List<String> after,
            @Nullable FollowOn on,
            boolean itemWise,
            boolean fired,
            List<Item> items,
            @Nullable String why) {}

    private static final String UNKNOWN = "not a job of this application";

    /** Whether the job follows others or is followed: whether it has a chain to show. */
    static boolean inAChain(Map<String, List<String>> followers, JobConfiguration configuration) {
        return configuration.followsJobs()
                || !followers.getOrDefault(configuration.name(), List.of()).isEmpty();
    }

    /** The jobs of the chain through {@code job}: itself, its upstreams and its followers, each transitively. */
    static Set<String> members(
            Map<String, List<String>> followers, Map<String, JobConfiguration> configurations, String job) {
        Set<String> members = new LinkedHashSet<>();
        members.add(job);
        Deque<String> up = new ArrayDeque<>(List.of(job));
        while (!up.isEmpty()) {
            JobConfiguration configuration = configurations.get(up.poll());
            if (configuration != null) {
                configuration.after().stream().filter(members::add).forEach(up::add);
            }
        }
        Deque<String> down = new ArrayDeque<>(List.of(job));
        while (!down.isEmpty()) {
            followers.getOrDefault(down.poll(), List.of()).stream()
                    .filter(members::add)
                    .forEach(down::add);
        }
        return members;
    }

    /**
     * The rows of the chain through {@code job} at {@code fireTime}, by layer and then name.
     *
     * @param fires each job's recent fires in the ledger; a job absent here counts as having none
     */
    static List<Row> of(
            Map<String, List<String>> followers,
            Map<String, JobConfiguration> configurations,
            Map<String, List<LedgerFire>> fires,
            String job,
            Instant fireTime) {
        Set<String> members = members(followers, configurations, job);
        Map<String, GraphLayout.Job> jobs = new TreeMap<>();
        configurations
                .values()
                .forEach(configuration -> jobs.put(configuration.name(), GraphLayout.Job.of(configuration)));
        Map<String, Integer> layers = GraphLayout.layers(jobs);
        List<Row> rows = new ArrayList<>();
        for (String member : members) {
            rows.add(row(member, layers.getOrDefault(member, 0), configurations, fires, fireTime));
        }
        rows.sort(Comparator.comparingInt(Row::layer).thenComparing(Row::job));
        return rows;
    }

    private static Row row(
            String job,
            int layer,
            Map<String, JobConfiguration> configurations,
            Map<String, List<LedgerFire>> fires,
            Instant fireTime) {
        JobConfiguration configuration = configurations.get(job);
        if (configuration == null) {
            return new Row(job, layer, false, List.of(), null, false, false, List.of(), UNKNOWN);
        }
        FollowOn on = configuration.followsJobs() ? configuration.on() : null;
        Optional<LedgerFire> fire = fireAt(fires, job, fireTime);
        if (fire.isPresent()) {
            List<String> awaiting = fire.get().awaiting();
            return new Row(
                    job,
                    layer,
                    true,
                    configuration.after(),
                    on,
                    configuration.itemWise(),
                    true,
                    items(configuration, fire.get()),
                    fire.get().abandonedBy() != null
                            ? "given up: " + fire.get().abandonedBy() + " did not complete this fire as it follows it"
                            : awaiting.isEmpty() ? null : "waiting for " + String.join(", ", awaiting));
        }
        return new Row(
                job,
                layer,
                true,
                configuration.after(),
                on,
                configuration.itemWise(),
                false,
                List.of(),
                whyNoFire(configuration, configurations, fires, fireTime));
    }

    /** What keeps a job from having fired for T, from its upstreams' fires at T. */
    private static String whyNoFire(
            JobConfiguration configuration,
            Map<String, JobConfiguration> configurations,
            Map<String, List<LedgerFire>> fires,
            Instant fireTime) {
        List<String> reasons = new ArrayList<>();
        for (String upstream : new LinkedHashSet<>(configuration.after())) {
            Optional<LedgerFire> fire = fireAt(fires, upstream, fireTime);
            if (!configurations.containsKey(upstream)) {
                reasons.add(upstream + " is " + UNKNOWN);
            } else if (fire.isEmpty()) {
                reasons.add("no fire of " + upstream + " at " + fireTime);
            } else if (configuration.on() == FollowOn.SUCCESS && hasFailedItems(fire.get())) {
                reasons.add(upstream + " failed items at " + fireTime + " (on: " + FollowOn.SUCCESS.value() + ")");
            } else if (!fire.get().settled()) {
                reasons.add("waiting for " + upstream);
            }
        }
        return reasons.isEmpty() ? "no fire at " + fireTime : String.join("; ", reasons);
    }

    private static Optional<LedgerFire> fireAt(Map<String, List<LedgerFire>> fires, String job, Instant fireTime) {
        return fires.getOrDefault(job, List.of()).stream()
                .filter(fire -> fire.fireTime().equals(fireTime))
                .findFirst();
    }

    private static boolean hasFailedItems(LedgerFire fire) {
        return fire.items().stream().anyMatch(item -> item.state() == ClaimState.FAILED);
    }

    /** Every item of the job at T: those claimed as their claims say, the others not yet. */
    private static List<Item> items(JobConfiguration configuration, LedgerFire fire) {
        Map<Integer, Item> items = new TreeMap<>();
        // With dynamic sharding the count is the assignment's, which a configuration does not know: the claims say.
        int total = configuration.dynamicSharding() ? 0 : configuration.shardingTotalCount();
        for (int item = 0; item < total; item++) {
            items.put(item, new Item(item, ItemState.NOT_YET, null));
        }
        for (LedgerFire.Item claim : fire.items()) {
            items.put(claim.item(), new Item(claim.item(), state(claim), claim.instanceId()));
        }
        return List.copyOf(items.values());
    }

    private static ItemState state(LedgerFire.Item claim) {
        return switch (claim.state()) {
            case DONE -> ItemState.SUCCEEDED;
            case FAILED -> ItemState.FAILED;
            case RUNNING -> claim.live() ? ItemState.RUNNING : ItemState.NOT_YET;
            case RESERVED, RELEASED, HANDED_ON -> ItemState.NOT_YET;
            case COALESCED, SKIPPED -> ItemState.SKIPPED;
        };
    }
}
