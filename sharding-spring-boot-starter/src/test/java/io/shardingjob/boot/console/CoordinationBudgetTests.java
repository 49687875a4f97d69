package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The coordination budget as an operator meets it, on a real ZooKeeper over real HTTP: a job whose item parameters are
 * near their limit shows the warning with its arithmetic in the health's details (the status staying UP), in
 * {@code /actuator/sharding/{job}} and as a badge on its console page; the meters read the ledger's nodes, bytes and
 * writes and the instance's requests after some fires.
 */
class CoordinationBudgetTests {

    private static final String NEAR = "nearLimit";

    /** 220,002 bytes: 83 % of the 262,144 item parameters may take. */
    private static final String LARGE_PARAMETERS = "0=" + "x".repeat(219_996) + ",1=y";

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                false,
                List.of(ConsoleApplication.Service.class, NearLimit.class),
                "management.endpoints.web.exposure.include=sharding,health",
                "management.endpoint.health.show-details=always",
                "sharding.jobs." + NEAR + ".sharding-item-parameters=" + LARGE_PARAMETERS);
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @Test
    void theHealthStaysUpAndTellsOfTheJobNearALimitWithItsArithmetic() {
        DocumentContext health = json(application.get("/actuator/health/sharding"));

        assertThat(health.read("$.status", String.class)).isEqualTo("UP");
        assertThat(health.read("$.details.jobs." + NEAR + ".budget[0].limit", String.class))
                .isEqualTo("ITEM_PARAMETERS");
        assertThat(health.read("$.details.jobs." + NEAR + ".budget[0].severity", String.class))
                .isEqualTo("WARNING");
        assertThat(health.read("$.details.jobs." + NEAR + ".budget[0].percent", Integer.class))
                .isEqualTo(83);
        assertThat(health.read("$.details.jobs.orderSync", java.util.Map.class)).doesNotContainKey("budget");
        assertThat(health.read("$.details.warnings", List.class))
                .containsExactly("job nearLimit is near a limit of ZooKeeper's: shardingItemParameters: the item"
                        + " parameters take 220,002 bytes in UTF-8 of the 262,144 bytes allowed (83 % of the limit)");
    }

    @Test
    void theEndpointDescribesEachJobsBudgetWithItsFindings() {
        DocumentContext near = json(application.get("/actuator/sharding/" + NEAR));
        assertThat(near.read("$.budget.findings[*].limit", List.class)).containsExactly("ITEM_PARAMETERS");
        assertThat(near.read("$.budget.findings[0].property", String.class)).isEqualTo("shardingItemParameters");
        assertThat(near.read("$.budget.findings[0].message", String.class)).contains("220,002 bytes");
        assertThat(near.read("$.budget.configurationBytes", Integer.class)).isGreaterThan(220_002);
        assertThat(near.read("$.budget.packetBytes", Integer.class)).isEqualTo(1_048_575);

        await().atMost(PATIENCE).untilAsserted(() -> {
            DocumentContext ticking = json(application.get("/actuator/sharding/orderSync"));
            assertThat(ticking.read("$.budget.itemsPerFire", Integer.class)).isEqualTo(3);
            assertThat(ticking.read("$.budget.firesRetained", Long.class)).isGreaterThanOrEqualTo(60);
            assertThat(ticking.read("$.budget.ledgerNodes", Long.class))
                    .isEqualTo(4 * ticking.read("$.budget.firesRetained", Long.class));
            assertThat(ticking.read("$.budget.ledgerWriteOperations", Long.class))
                    .isPositive();
            assertThat(ticking.read("$.budget.findings", List.class)).isEmpty();
            // A field the descriptor had before keeps its name.
            assertThat(ticking.read("$.shardingTotalCount", Integer.class)).isEqualTo(3);
        });
    }

    @Test
    void theMetersReadTheLedgersNodesBytesAndWritesAndTheInstancesRequests() {
        MeterRegistry meters = application.bean(MeterRegistry.class);

        await().atMost(PATIENCE).untilAsserted(() -> {
            double nodes = meters.get("sharding.job.ledger.nodes")
                    .tag("job", "orderSync")
                    .gauge()
                    .value();
            assertThat(nodes).isGreaterThanOrEqualTo(4 * 60);
            // 250 bytes a claim, four nodes a fire: whatever fires the latest audit listed.
            assertThat(meters.get("sharding.job.ledger.bytes")
                                    .tag("job", "orderSync")
                                    .gauge()
                                    .value()
                            % 1_000)
                    .isZero();
            assertThat(meters.get("sharding.job.ledger.writes")
                            .tag("job", "orderSync")
                            .functionCounter()
                            .count())
                    .isGreaterThanOrEqualTo(8 * 3);
            assertThat(meters.get("sharding.zookeeper.requests")
                            .functionCounter()
                            .count())
                    .isPositive();
        });
        double requests =
                meters.get("sharding.zookeeper.requests").functionCounter().count();
        await().atMost(PATIENCE)
                .until(() -> meters.get("sharding.zookeeper.requests")
                                .functionCounter()
                                .count()
                        > requests);
        assertThat(meters.get("sharding.job.budget.findings")
                        .tag("job", NEAR)
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(meters.get("sharding.job.budget.findings")
                        .tag("job", "orderSync")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void theConsoleShowsABadgeWithTheWarningOnTheJobsPageAndInTheOverview() {
        String page = application.get("/sharding-console/jobs/" + NEAR).body();
        assertThat(page)
                .containsPattern(
                        "<dd class=\"budget\">ledger [\\d,]+ nodes, about [\\d,]+ bytes; [\\d,]+ writes from"
                                + " here <span class=\"badge warning\" data-limit=\"ITEM_PARAMETERS\" data-severity=\"WARNING\"")
                .contains(">near shardingItemParameters limit, 83 %</span>")
                .contains("<span class=\"warning budget-warning\">shardingItemParameters: the item parameters take"
                        + " 220,002 bytes in UTF-8 of the 262,144 bytes allowed (83 % of the limit)</span>");
        assertThat(application.get("/sharding-console/jobs/orderSync").body())
                .contains("<dd class=\"budget\">ledger ")
                .doesNotContain("class=\"badge warning\"");
        assertThat(application.get("/sharding-console").body())
                .contains("<span class=\"warning\">near a limit of ZooKeeper&#39;s: shardingItemParameters");
    }

    private static DocumentContext json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JsonPath.parse(response.body());
    }

    /** A job fired only when triggered, whose item parameters are set large by a property. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class NearLimit {

        @Bean
        Near near() {
            return new Near();
        }
    }

    static class Near {

        @ShardedJob(name = NEAR, cron = "0 0 0 1 1 *", shardingTotalCount = 2)
        void run(ShardingContext context) {}
    }
}
