package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinatorBuilder;
import io.shardingjob.core.benchmark.BenchmarkCluster.Member;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Jobs that follow jobs: how long after an upstream fire's completion its follower's first item starts, and what the
 * chain adds to ZooKeeper's traffic. The upstream job and its follower each run on three instances, every instance of
 * every job a Curator client of its own (so that each side's requests are counted apart); the upstream is fired on
 * every instance at once every few hundred milliseconds, as its scheduler would, and the follower runs what the chain records.
 *
 * <p>Four runs of the same fires, each in a namespace of its own: the follower present but following nothing and never
 * fired (the baseline: both jobs' upkeep), fired by the benchmark itself at the same fire time once the upstream's
 * fire returned on every instance (what the follower's fire costs without a chain), following the upstream fire by
 * fire, and following it item by item.
 */
class ChainBenchmark {

    private static final int INSTANCES = 3;

    private static final int WARM_UP = 20;

    /** Enough for a p99 of the fire-wise delay: the second largest. {@code -Dchain.fires=20} for a quick look. */
    private static final int FIRES = Integer.getInteger("chain.fires", 200);

    /** Long enough that a fire's items, and its follower's, end before the next fire on two loaded cores. */
    private static Duration period(int items) {
        return Duration.ofMillis(items >= 100 ? 600 : 300);
    }

    private static final int THREADS = 8;

    /** How the follower is set off. */
    private enum Mode {
        NONE("none (baseline)"),
        OWN("fired on its own"),
        FIRE_WISE("after, fire-wise"),
        ITEM_WISE("after, item-wise");

        private final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    /** What one run measured. */
    private record Run(
            Mode mode,
            int items,
            int complete,
            Counts upstream,
            Counts follower,
            List<Double> completionToFirstStart,
            List<Double> completionToNote,
            List<Double> noteToFirstStart,
            List<Double> itemEndToItemStart) {}

    @Test
    void measuresTheDelayFromAnUpstreamCompletionToItsFollowersFirstItemAndTheRequestsTheChainAdds() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Chained fires",
                "A job `up` and a job `down` following it (`after(\"up\")`), each on " + INSTANCES
                        + " instances, every instance of every job a Curator client of its own (5 s sessions, default"
                        + " reconcile interval), items with an empty body on pools of " + THREADS + " threads. `up` is"
                        + " fired on every instance at once every 300 ms (10 items) or 600 ms (100 items), " + FIRES
                        + " measured fires after " + WARM_UP + " of warm-up. *Completion*: the latest recorded end"
                        + " (`ItemResult.end()`) of the upstream fire's items; *note*: when the upstream's completion"
                        + " listener is called on the instance that won the completion, right after the request that"
                        + " wrote the note and recorded and announced the follower's fire; *first start*: the earliest"
                        + " `ItemResult.start()` of the follower's items of the same fire time. Item-wise: from"
                        + " upstream item i's end to follower item i's start, every item of every fire. Requests: the"
                        + " same fires in four runs, each in a namespace of its own: `down` present but never fired"
                        + " (baseline), `down` fired by the benchmark on every instance at the same fire time once"
                        + " `up`'s fire returned everywhere (*own*), `down` after `up` fire-wise, and item-wise;"
                        + " counted on every client from the first measured fire until no client sent a request for"
                        + " 300 ms after the last follower item, per measured fire (all instances together).");
        List<Run> runs = new ArrayList<>();
        try (BenchmarkCluster cluster = new BenchmarkCluster("chain")) {
            for (int items : List.of(10, 100)) {
                for (Mode mode : Mode.values()) {
                    runs.add(run(cluster, mode, items));
                }
            }
        }
        report.table(
                "items",
                "follower",
                "fires measured",
                "completion to first start p50 ms",
                "p99 ms",
                "max ms",
                "completion to note p50 / p99 ms",
                "note to first start p50 / p99 ms",
                "upstream item end to follower item start p50 / p99 / max ms");
        for (Run run : runs) {
            if (run.mode() == Mode.NONE) {
                continue;
            }
            List<Double> delays = run.completionToFirstStart();
            report.row(
                    run.items(),
                    run.mode().label,
                    run.complete() + " of " + FIRES,
                    BenchmarkReport.percentile(delays, 50),
                    BenchmarkReport.percentile(delays, 99),
                    BenchmarkReport.percentile(delays, 100),
                    pair(run.completionToNote()),
                    pair(run.noteToFirstStart()),
                    run.mode() == Mode.ITEM_WISE
                            ? pair(run.itemEndToItemStart()) + " / "
                                    + format(BenchmarkReport.percentile(run.itemEndToItemStart(), 100))
                            : "-");
        }
        report.table(
                "items",
                "follower",
                "upstream's instances: requests per fire",
                "follower's instances: requests per fire",
                "added to the baseline per chained fire",
                "added beyond the follower's own fire",
                "by operation, added to the baseline (all instances, all fires)");
        for (int items : List.of(10, 100)) {
            Run baseline = runs.stream()
                    .filter(run -> run.items() == items && run.mode() == Mode.NONE)
                    .findFirst()
                    .orElseThrow();
            Run own = runs.stream()
                    .filter(run -> run.items() == items && run.mode() == Mode.OWN)
                    .findFirst()
                    .orElseThrow();
            for (Run run : runs) {
                if (run.items() != items) {
                    continue;
                }
                Counts all = run.upstream().plus(run.follower());
                Counts baselineAll = baseline.upstream().plus(baseline.follower());
                report.row(
                        items,
                        run.mode().label,
                        run.upstream().total() / (double) FIRES,
                        run.follower().total() / (double) FIRES,
                        run.mode() == Mode.NONE ? "-" : format((all.total() - baselineAll.total()) / (double) FIRES),
                        run.mode() == Mode.NONE || run.mode() == Mode.OWN
                                ? "-"
                                : format((all.total()
                                                - own.upstream()
                                                        .plus(own.follower())
                                                        .total())
                                        / (double) FIRES),
                        run.mode() == Mode.NONE ? "-" : difference(all, baselineAll));
            }
        }
        report.note("The ledger's requests are multi-operations (`LedgerMulti`), whether they read or write, so the"
                + " counts are split by operation rather than into reads and writes: `GetData/background` are the"
                + " caches' reads of a changed node (each instance of the follower reads its announcement node once"
                + " per announcement).");
        report.write();
    }

    private Run run(BenchmarkCluster cluster, Mode mode, int items) throws Exception {
        String namespace = "chain-" + items + "-" + mode.name().toLowerCase(Locale.ROOT);
        Map<Instant, List<ItemResult>> upstreamRuns = new ConcurrentHashMap<>();
        Map<Instant, List<ItemResult>> followerRuns = new ConcurrentHashMap<>();
        Map<Instant, Instant> noted = new ConcurrentHashMap<>();
        JobConfiguration.Builder downstream = JobConfiguration.builder("down")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(items)
                .failover(true);
        if (mode == Mode.FIRE_WISE || mode == Mode.ITEM_WISE) {
            downstream = JobConfiguration.builder("down")
                    .shardingTotalCount(items)
                    .failover(true)
                    .after("up")
                    .itemWise(mode == Mode.ITEM_WISE);
        }
        JobConfiguration up = JobConfiguration.builder("up")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(items)
                .failover(true)
                .build();
        JobConfiguration down = downstream.build();
        // The completion listener costs no request once a job follows: the completer writes its notes either way.
        boolean chained = mode == Mode.FIRE_WISE || mode == Mode.ITEM_WISE;
        UnaryOperator<JobCoordinatorBuilder> noting = chained
                ? builder -> builder.completionListener(
                        completion -> noted.putIfAbsent(completion.fireTime(), Instant.now()))
                : builder -> builder;
        List<Member> followers = new ArrayList<>();
        List<Member> upstreams = new ArrayList<>();
        // The follower first, so that the upstream's instances find it registered from their first fire on.
        for (int i = 0; i < INSTANCES; i++) {
            Member member = cluster.member(
                    namespace, "i" + i, down, context -> {}, THREADS, collectInto(followerRuns), builder -> builder);
            member.coordinator().start();
            followers.add(member);
        }
        for (int i = 0; i < INSTANCES; i++) {
            Member member =
                    cluster.member(namespace, "i" + i, up, context -> {}, THREADS, collectInto(upstreamRuns), noting);
            member.coordinator().start();
            upstreams.add(member);
        }
        BenchmarkCluster.awaitAllOwned(followers, items);
        BenchmarkCluster.awaitAllOwned(upstreams, items);
        List<Member> everyone = new ArrayList<>(upstreams);
        everyone.addAll(followers);

        Instant first = Instant.now().truncatedTo(ChronoUnit.MILLIS).plusSeconds(1);
        long start = System.nanoTime() + Duration.between(Instant.now(), first).toNanos();
        List<CompletableFuture<?>> fired = new ArrayList<>();
        Counts upstreamBefore = Counts.NONE;
        Counts followerBefore = Counts.NONE;
        List<Instant> measured = new ArrayList<>();
        Duration period = period(items);
        for (int fire = 0; fire < WARM_UP + FIRES; fire++) {
            if (fire == WARM_UP) {
                awaitFollowed(mode, followerRuns, items, fire);
                cluster.awaitQuiet(everyone);
                start = System.nanoTime() + period.toNanos();
                first = Instant.now().truncatedTo(ChronoUnit.MILLIS).plus(period);
                upstreamBefore = cluster.requests(upstreams);
                followerBefore = cluster.requests(followers);
            }
            int index = fire < WARM_UP ? fire : fire - WARM_UP;
            Instant fireTime = first.plus(period.multipliedBy(index));
            long wait = start + period.multipliedBy(index).toNanos() - System.nanoTime();
            if (wait > 0) {
                BenchmarkCluster.sleep(Duration.ofNanos(wait));
            }
            if (fire >= WARM_UP) {
                measured.add(fireTime);
            }
            List<CompletableFuture<FireReport>> onEach = cluster.fireAll(upstreams, fireTime);
            CompletableFuture<?> all = CompletableFuture.allOf(onEach.toArray(new CompletableFuture<?>[0]));
            if (mode == Mode.OWN) {
                all = all.thenCompose(done -> CompletableFuture.allOf(
                        cluster.fireAll(followers, fireTime).toArray(new CompletableFuture<?>[0])));
            }
            fired.add(all);
        }
        CompletableFuture.allOf(fired.toArray(new CompletableFuture<?>[0])).join();
        awaitFollowed(mode, followerRuns, items, WARM_UP + FIRES);
        cluster.awaitQuiet(everyone);
        Counts upstreamUsed = cluster.requests(upstreams).since(upstreamBefore);
        Counts followerUsed = cluster.requests(followers).since(followerBefore);

        List<Double> completionToFirstStart = new ArrayList<>();
        List<Double> completionToNote = new ArrayList<>();
        List<Double> noteToFirstStart = new ArrayList<>();
        List<Double> itemEndToItemStart = new ArrayList<>();
        int complete = 0;
        for (Instant fireTime : measured) {
            List<ItemResult> ups = upstreamRuns.getOrDefault(fireTime, List.of());
            List<ItemResult> downs = followerRuns.getOrDefault(fireTime, List.of());
            assertThat(ups)
                    .as("upstream runs of %s", fireTime)
                    .extracting(run -> run.context().item())
                    .doesNotHaveDuplicates();
            assertThat(downs)
                    .as("follower runs of %s", fireTime)
                    .extracting(run -> run.context().item())
                    .doesNotHaveDuplicates();
            // A fire whose items were still running when the next one came (two shared cores under load) is coalesced
            // into a later make-up run: it has no complete run of its own to measure.
            boolean followed = mode == Mode.NONE || downs.size() == items;
            if (ups.size() != items || !ups.stream().allMatch(ItemResult::succeeded) || !followed) {
                continue;
            }
            complete++;
            if (mode == Mode.NONE) {
                continue;
            }
            Instant completion =
                    ups.stream().map(ItemResult::end).max(Instant::compareTo).orElseThrow();
            Instant firstStart = downs.stream()
                    .map(ItemResult::start)
                    .min(Instant::compareTo)
                    .orElseThrow();
            completionToFirstStart.add(millis(completion, firstStart));
            Instant note = noted.get(fireTime);
            if (note != null) {
                completionToNote.add(millis(completion, note));
                noteToFirstStart.add(millis(note, firstStart));
            }
            if (mode == Mode.ITEM_WISE) {
                Map<Integer, Instant> ends = new TreeMap<>();
                ups.forEach(run -> ends.put(run.context().item(), run.end()));
                downs.forEach(run ->
                        itemEndToItemStart.add(millis(ends.get(run.context().item()), run.start())));
            }
        }
        if (mode == Mode.FIRE_WISE || mode == Mode.ITEM_WISE) {
            assertThat(followerRuns.values().stream().flatMap(List::stream))
                    .extracting(ItemResult::source)
                    .containsOnly(ExecutionSource.UPSTREAM);
        }
        System.out.printf(
                Locale.ROOT,
                "[chain] items=%d mode=%s upstream requests: %s follower requests: %s%n",
                items,
                mode,
                upstreamUsed,
                followerUsed);
        everyone.parallelStream().forEach(Member::leave);
        return new Run(
                mode,
                items,
                complete,
                upstreamUsed,
                followerUsed,
                completionToFirstStart,
                completionToNote,
                noteToFirstStart,
                itemEndToItemStart);
    }

    private static ExecutionListener collectInto(Map<Instant, List<ItemResult>> runs) {
        return result -> runs.computeIfAbsent(result.fireTime(), time -> new CopyOnWriteArrayList<>())
                .add(result);
    }

    /**
     * Until every item of the fires so far ran in the follower (nothing to wait for in the baseline), or a few seconds
     * passed: a fire coalesced into a make-up in the upstream completes without success, and its follower never runs.
     */
    private static void awaitFollowed(Mode mode, Map<Instant, List<ItemResult>> followerRuns, int items, int fires) {
        if (mode == Mode.NONE) {
            return;
        }
        try {
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() ->
                            followerRuns.values().stream().mapToInt(List::size).sum() >= items * fires);
        } catch (ConditionTimeoutException someNeverFollowed) {
            // Counted below as fires not measured.
        }
    }

    private static double millis(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e6;
    }

    private static String pair(List<Double> values) {
        if (values.isEmpty()) {
            return "-";
        }
        return format(BenchmarkReport.percentile(values, 50)) + " / " + format(BenchmarkReport.percentile(values, 99));
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
    }

    /** What {@code counts} has beyond {@code baseline}, per measured fire, by operation. */
    private static String difference(Counts counts, Counts baseline) {
        Set<String> names = new TreeSet<>(counts.byOperation().keySet());
        names.addAll(baseline.byOperation().keySet());
        List<String> parts = new ArrayList<>();
        for (String name : names) {
            long added = counts.byOperation().getOrDefault(name, 0L)
                    - baseline.byOperation().getOrDefault(name, 0L);
            if (added != 0) {
                parts.add(name + " " + format(added / (double) FIRES));
            }
        }
        return String.join(", ", parts);
    }
}
