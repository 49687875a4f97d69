package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Re-running the failed items of a past fire from the console's fires table and from the {@code sharding} endpoint:
 * the button shows on a fire the ledger holds with a failed item, the action runs exactly those items again as the
 * fire's runs ({@code RETRY}), and both are audited as every operator's action is.
 */
class ShardingConsoleRerunTests {

    private static final String SETTLE = "settle";

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** Whether item 1 of {@code settle} fails when it runs. */
    static final AtomicBoolean ITEM_ONE_FAILS = new AtomicBoolean();

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                false,
                List.of(ConsoleApplication.Service.class, Settlement.class, OperatorActionsAuditTests.Audited.class),
                "management.endpoint.sharding.access=unrestricted",
                "management.endpoints.web.exposure.include=sharding,shardingconsole");
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @BeforeEach
    void forgetEarlierAudits() {
        application.bean(OperatorActionsAuditTests.AuditEvents.class).events.clear();
    }

    @Test
    void theReRunButtonOfAFireWithAFailedItemRunsThatItemAgainAsTheFiresRunAndIsAudited() throws Exception {
        Instant fireTime = aFireWithItemOneFailed();
        String button = "data-action=\"rerun\" data-job=\"settle\"";
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(
                                application.get("/sharding-console/jobs/settle").body())
                        .containsPattern(
                                button + " data-confirm=\"[^\"]*\" data-rerun-fire=\"" + fireTime.toEpochMilli() + "\"")
                        .contains("<input type=\"hidden\" name=\"fireTime\">"));
        ITEM_ONE_FAILS.set(false);

        HttpResponse<String> rerun = application.post(
                "/sharding-console/jobs/settle/operations",
                Map.of("action", "rerun", "fireTime", String.valueOf(fireTime.toEpochMilli())),
                application.fromAPage());

        assertThat(rerun.statusCode()).as(rerun.body()).isEqualTo(200);
        assertThat(rerun.body()).contains("data-status=\"ok\"").contains("items [1] of the fire at " + fireTime);
        AuditEvent audit = nextAudit();
        assertThat(audit.getData())
                .containsEntry("job", SETTLE)
                .containsEntry("target", "job")
                .containsEntry("action", "rerun");
        await().atMost(PATIENCE).until(() -> reRunsOf(fireTime).size() == 1);
        ExecutionRecord reRun = reRunsOf(fireTime).get(0);
        assertThat(reRun.item()).isEqualTo(1);
        assertThat(reRun.outcome()).isEqualTo(ExecutionRecord.Outcome.SUCCESS);
        // Nothing failed any more: the fire's row offers no re-run, and a second one is refused.
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(
                                application.get("/sharding-console/jobs/settle").body())
                        .doesNotContain("data-rerun-fire=\"" + fireTime.toEpochMilli() + "\""));
        HttpResponse<String> again = application.post(
                "/sharding-console/jobs/settle/operations",
                Map.of("action", "rerun", "fireTime", String.valueOf(fireTime.toEpochMilli())),
                application.fromAPage());
        assertThat(again.statusCode()).isEqualTo(400);
        assertThat(again.body()).contains("data-status=\"error\"").contains("nothing to re-run");
    }

    @Test
    void theEndpointsReRunActionTakesAnIsoFireTimeAnswersWithItAndIsAudited() throws Exception {
        Instant fireTime = aFireWithItemOneFailed();
        ITEM_ONE_FAILS.set(false);

        HttpResponse<String> endpoint = application.postJson(
                "/actuator/sharding/settle", "{\"action\":\"rerun\",\"fireTime\":\"" + fireTime + "\"}");

        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(200);
        assertThat(JsonPath.parse(endpoint.body()).read("$.result", String.class))
                .isEqualTo("done");
        assertThat(JsonPath.parse(endpoint.body()).read("$.fireTime", String.class))
                .isEqualTo(fireTime.toString());
        assertThat(nextAudit().getData())
                .containsEntry("action", "rerun")
                .containsEntry("job", SETTLE)
                .hasEntrySatisfying(
                        "result",
                        result -> assertThat((String) result).startsWith("ok: items [1] of the fire at " + fireTime));
        await().atMost(PATIENCE).until(() -> reRunsOf(fireTime).size() == 1);

        HttpResponse<String> withoutAFire = application.postJson("/actuator/sharding/settle", "{\"action\":\"rerun\"}");
        assertThat(withoutAFire.statusCode()).isEqualTo(400);
        assertThat(withoutAFire.body()).contains("fireTime");
        HttpResponse<String> notAFire =
                application.postJson("/actuator/sharding/settle", "{\"action\":\"rerun\",\"fireTime\":\"soon\"}");
        assertThat(notAFire.statusCode()).isEqualTo(400);
        assertThat(notAFire.body()).contains("not a fire time");
    }

    /** Fires {@code settle} with its item 1 failing, and waits for the fire's three ends. */
    private static Instant aFireWithItemOneFailed() {
        ITEM_ONE_FAILS.set(true);
        Instant fireTime = application.operations().trigger(SETTLE, null).orElseThrow();
        await().atMost(PATIENCE).until(() -> runsOf(fireTime).size() == 3);
        assertThat(runsOf(fireTime))
                .filteredOn(run -> run.outcome() != ExecutionRecord.Outcome.SUCCESS)
                .extracting(ExecutionRecord::item)
                .containsExactly(1);
        return fireTime;
    }

    private static List<ExecutionRecord> runsOf(Instant fireTime) {
        return application.operations().recentExecutions(SETTLE).stream()
                .filter(run -> run.fireTime().equals(fireTime))
                .toList();
    }

    private static List<ExecutionRecord> reRunsOf(Instant fireTime) {
        return runsOf(fireTime).stream()
                .filter(run -> run.source() == ExecutionSource.RETRY)
                .toList();
    }

    private static AuditEvent nextAudit() throws InterruptedException {
        AuditEvent event = application
                .bean(OperatorActionsAuditTests.AuditEvents.class)
                .events
                .poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(event).as("an audit event").isNotNull();
        return event;
    }

    /** A job fired only by hand whose item 1 fails while {@link #ITEM_ONE_FAILS} says so. */
    @Configuration(proxyBeanMethods = false)
    static class Settlement {

        @Bean
        SettlementJob settlementJob() {
            return new SettlementJob();
        }
    }

    static class SettlementJob {

        @ShardedJob(name = SETTLE, cron = "0 0 0 1 1 *", shardingTotalCount = 3)
        void settle(ShardingContext context) {
            if (context.item() == 1 && ITEM_ONE_FAILS.get()) {
                throw new IllegalStateException("item 1 of the settlement fails");
            }
        }
    }
}
