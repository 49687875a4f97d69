package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.console.FireChain.Row;
import io.shardingjob.core.StoredJobs;
import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One fire down its chain: each job of the chain with its fire at the same time, and why a job has none. The chain is
 * {@code settle -> export -> archive}, with {@code bill -> export} too when a case says so; the page is export's.
 */
class FireChainTests {

    private static final Instant T = Instant.parse("2026-03-01T02:00:00Z");

    private static final Instant EARLIER = T.minusSeconds(3600);

    /**
     * Each case: the fires in the ledger (job: item states at T, {@code D} done, {@code F} failed, {@code R} running,
     * {@code -} reserved; {@code job@earlier} for a fire at another time; {@code job~bill} for a fire awaiting bill), and
     * for each job what the chain says: its items, or why it has no fire.
     */
    static Stream<Arguments> chains() {
        return Stream.of(
                Arguments.of(
                        "every job fired and succeeded",
                        FollowOn.SUCCESS,
                        "settle:DD export:DD archive:DD",
                        "settle=0 SUCCEEDED,1 SUCCEEDED | export=0 SUCCEEDED,1 SUCCEEDED"
                                + " | archive=0 SUCCEEDED,1 SUCCEEDED"),
                Arguments.of(
                        "an upstream item failed and the follower follows success",
                        FollowOn.SUCCESS,
                        "settle:DF",
                        "settle=0 SUCCEEDED,1 FAILED | export=settle failed items at " + T + " (on: success)"
                                + " | archive=no fire of export at " + T),
                Arguments.of(
                        "an upstream item failed and the follower follows completion",
                        FollowOn.COMPLETION,
                        "settle:DF export:R-",
                        "settle=0 SUCCEEDED,1 FAILED | export=0 RUNNING,1 NOT_YET | archive=waiting for export"),
                Arguments.of(
                        "the upstream still runs",
                        FollowOn.SUCCESS,
                        "settle:DR",
                        "settle=0 SUCCEEDED,1 RUNNING | export=waiting for settle" + " | archive=no fire of export at "
                                + T),
                Arguments.of(
                        "the upstream has no fire at T",
                        FollowOn.SUCCESS,
                        "settle@earlier:DD",
                        "settle=no fire at " + T + " | export=no fire of settle at " + T
                                + " | archive=no fire of export at " + T),
                Arguments.of(
                        "a follower has a fire at T whose items nobody claimed yet",
                        FollowOn.SUCCESS,
                        "settle:DD export:",
                        "settle=0 SUCCEEDED,1 SUCCEEDED | export=0 NOT_YET,1 NOT_YET | archive=waiting for export"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chains")
    void showsEachJobOfTheChainAtTheFireOrWhyItHasNone(String title, FollowOn on, String ledger, String expected) {
        Map<String, JobConfiguration> configurations = configurations(on, false);

        List<Row> rows = FireChain.of(followers(configurations), configurations, fires(ledger), "export", T);

        assertThat(rows).extracting(FireChainTests::describe).containsExactly(expected.split(" \\| "));
    }

    @Test
    void saysWhichUpstreamsAFanInFireWaitsFor() {
        Map<String, JobConfiguration> configurations = configurations(FollowOn.SUCCESS, true);

        List<Row> rows = FireChain.of(
                followers(configurations), configurations, fires("settle:DD bill:R export~bill:"), "export", T);

        assertThat(rows)
                .extracting(FireChainTests::describe)
                .containsExactly(
                        "bill=0 RUNNING,1 NOT_YET",
                        "settle=0 SUCCEEDED,1 SUCCEEDED",
                        "export=0 NOT_YET,1 NOT_YET waiting for bill",
                        "archive=waiting for export");
        assertThat(rows).extracting(Row::layer).containsExactly(0, 0, 1, 2);
        assertThat(rows.get(2).after()).containsExactly("settle", "bill");
    }

    @Test
    void saysWhichUpstreamGaveAFanInFireUp() {
        Map<String, JobConfiguration> configurations = configurations(FollowOn.SUCCESS, true);
        Map<String, List<LedgerFire>> fires = new java.util.HashMap<>(fires("settle:DD bill:DF"));
        fires.put("export", List.of(new LedgerFire(T, true, List.of(), List.of("settle"), List.of(), "bill")));

        List<Row> rows = FireChain.of(followers(configurations), configurations, fires, "export", T);

        assertThat(rows.get(2).why()).isEqualTo("given up: bill did not complete this fire as it follows it");
    }

    @Test
    void namesEveryUpstreamThatKeepsAFanInJobFromFiring() {
        Map<String, JobConfiguration> configurations = configurations(FollowOn.SUCCESS, true);

        List<Row> rows = FireChain.of(
                followers(configurations), configurations, fires("settle:DF bill@earlier:D"), "archive", T);

        assertThat(rows)
                .filteredOn(row -> row.job().equals("export"))
                .singleElement()
                .extracting(Row::why)
                .isEqualTo("settle failed items at " + T + " (on: success); no fire of bill at " + T);
    }

    @Test
    void anUpstreamThatIsNoJobOfTheApplicationIsARowKnownOnlyByName() {
        Map<String, JobConfiguration> configurations = new TreeMap<>();
        configurations.put("export", job("export", FollowOn.SUCCESS, "ledgerClose"));

        List<Row> rows = FireChain.of(followers(configurations), configurations, Map.of(), "export", T);

        assertThat(rows).extracting(Row::job).containsExactly("ledgerClose", "export");
        assertThat(rows.get(0).known()).isFalse();
        assertThat(rows.get(1).why()).isEqualTo("ledgerClose is not a job of this application");
    }

    @Test
    void theChainOfAJobIsItsUpstreamsAndFollowersTransitivelyAndNotItsSiblings() {
        Map<String, JobConfiguration> configurations = configurations(FollowOn.SUCCESS, false);
        configurations.put("audit", job("audit", FollowOn.SUCCESS, "settle"));
        Map<String, List<String>> followers = followers(configurations);

        assertThat(FireChain.members(followers, configurations, "archive"))
                .containsExactlyInAnyOrder("archive", "export", "settle");
        assertThat(FireChain.members(followers, configurations, "settle"))
                .containsExactlyInAnyOrder("settle", "export", "archive", "audit");
        assertThat(FireChain.inAChain(followers, configurations.get("settle"))).isTrue();
        configurations.put("alone", JobConfiguration.builder("alone").build());
        assertThat(FireChain.inAChain(followers(configurations), configurations.get("alone")))
                .isFalse();
    }

    /** settle (and bill when {@code fanIn}) -> export -> archive, two items each. */
    private static Map<String, JobConfiguration> configurations(FollowOn exportOn, boolean fanIn) {
        Map<String, JobConfiguration> configurations = new TreeMap<>();
        configurations.put("settle", job("settle", FollowOn.SUCCESS));
        if (fanIn) {
            configurations.put("bill", job("bill", FollowOn.SUCCESS));
            configurations.put("export", job("export", exportOn, "settle", "bill"));
        } else {
            configurations.put("export", job("export", exportOn, "settle"));
        }
        configurations.put("archive", job("archive", FollowOn.SUCCESS, "export"));
        return configurations;
    }

    private static JobConfiguration job(String name, FollowOn on, String... after) {
        return JobConfiguration.builder(name)
                .cron(after.length == 0 ? "0 0 2 * * *" : JobConfiguration.ON_DEMAND)
                .shardingTotalCount(2)
                .after(after)
                .on(on)
                .build();
    }

    private static Map<String, List<String>> followers(Map<String, JobConfiguration> configurations) {
        return StoredJobs.followers(configurations.values());
    }

    /** {@code settle:DF export~bill:R-}: a fire per job, its claims' states in item order, at T unless {@code @earlier}. */
    private static Map<String, List<LedgerFire>> fires(String ledger) {
        Map<String, List<LedgerFire>> fires = new HashMap<>();
        for (String spec : ledger.trim().split("\\s+")) {
            String[] parts = spec.split(":", -1);
            String job = parts[0];
            Instant time = T;
            List<String> awaiting = List.of();
            if (job.endsWith("@earlier")) {
                job = job.substring(0, job.indexOf('@'));
                time = EARLIER;
            }
            if (job.contains("~")) {
                awaiting = Arrays.asList(job.substring(job.indexOf('~') + 1).split("\\+"));
                job = job.substring(0, job.indexOf('~'));
            }
            List<LedgerFire.Item> items = new ArrayList<>();
            boolean settled = true;
            for (int item = 0; item < parts[1].length(); item++) {
                ClaimState state = switch (parts[1].charAt(item)) {
                    case 'D' -> ClaimState.DONE;
                    case 'F' -> ClaimState.FAILED;
                    case 'R' -> ClaimState.RUNNING;
                    default -> ClaimState.RESERVED;
                };
                settled &= !state.isOpen();
                items.add(claim(item, state));
            }
            settled &= items.size() == 2;
            fires.put(job, List.of(new LedgerFire(time, settled, items, List.of(), awaiting, null)));
        }
        return fires;
    }

    private static LedgerFire.Item claim(int item, ClaimState state) {
        @Nullable Instant ended = state.isOpen() ? null : T.plusSeconds(2);
        return new LedgerFire.Item(
                item, state, "app-1", true, ExecutionSource.NORMAL, 1, 0, 10 + item, T.plusSeconds(1), ended, null);
    }

    private static String describe(Row row) {
        String items = String.join(
                ",",
                row.items().stream()
                        .map(item -> item.item() + " " + item.state())
                        .toList());
        if (!row.fired()) {
            return row.job() + "=" + row.why();
        }
        return row.job() + "=" + items + (row.why() == null ? "" : " " + row.why());
    }
}
