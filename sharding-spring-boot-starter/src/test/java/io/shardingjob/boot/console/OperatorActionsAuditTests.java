package io.shardingjob.boot.console;

import static io.shardingjob.boot.console.ConsoleApplication.JOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.shardingjob.boot.operations.OperationAudit;
import io.shardingjob.boot.operations.OperatorAction;
import io.shardingjob.boot.operations.OperatorAction.Target;
import io.shardingjob.core.JobCoordinator;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code sharding} endpoint and the console perform operators' actions through one type: the same action is
 * audited the same way whichever was asked, and a bad one refused the same way.
 */
class OperatorActionsAuditTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                false,
                List.of(ConsoleApplication.Service.class, Audited.class),
                "management.endpoint.sharding.access=unrestricted",
                "management.endpoints.web.exposure.include=sharding");
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @BeforeEach
    void forgetEarlierAudits() {
        application.bean(AuditEvents.class).events.clear();
    }

    @Test
    void theEndpointsWriteIsNowAuditedWithTheSameOperationAsTheConsoles() throws Exception {
        JobCoordinator job = application.operations().job(JOB).orElseThrow();

        HttpResponse<String> endpoint =
                application.postJson("/actuator/sharding/orderSync/items/1", "{\"action\":\"disable\"}");
        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(200);
        assertThat(JsonPath.parse(endpoint.body()).read("$.result", String.class))
                .isEqualTo("done");
        AuditEvent fromTheEndpoint = nextAudit();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).containsExactly(1));
        application.postJson("/actuator/sharding/orderSync/items/1", "{\"action\":\"enable\"}");
        nextAudit();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).isEmpty());

        HttpResponse<String> console = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-item", "item", "1"),
                application.fromAPage());
        assertThat(console.statusCode()).as(console.body()).isEqualTo(200);
        AuditEvent fromTheConsole = nextAudit();
        application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "enable-item", "item", "1"),
                application.fromAPage());
        nextAudit();

        assertThat(fromTheEndpoint.getType()).isEqualTo(OperationAudit.EVENT_TYPE);
        assertThat(fromTheEndpoint.getPrincipal()).isEqualTo(fromTheConsole.getPrincipal());
        assertThat(fromTheEndpoint.getData())
                .isEqualTo(fromTheConsole.getData())
                .containsEntry("job", JOB)
                .containsEntry("target", "item/1")
                .containsEntry("action", "disable-item")
                .containsEntry("result", "ok: item 1 disabled");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).isEmpty());
    }

    @Test
    void anUnknownActionIsRefusedByBothWithTheSameSentenceNamingWhatEachTakesAndAudited() throws Exception {
        HttpResponse<String> endpoint =
                application.postJson("/actuator/sharding/orderSync", "{\"action\":\"explode\"}");
        HttpResponse<String> console = application.post(
                "/sharding-console/jobs/orderSync/operations", Map.of("action", "explode"), application.fromAPage());

        assertThat(endpoint.statusCode()).isEqualTo(400);
        assertThat(console.statusCode()).isEqualTo(400);
        String endpointReason = JsonPath.parse(endpoint.body()).read("$.result", String.class);
        assertThat(endpointReason).isEqualTo(OperatorAction.unknown("explode", Set.of(Target.JOB, Target.DEFINITION)));
        assertThat(console.body())
                .contains(OperatorAction.unknown("explode", Set.of(Target.JOB, Target.ITEM, Target.INSTANCE))
                        .replace("'", "&#39;"));
        for (AuditEvent audit : List.of(nextAudit(), nextAudit())) {
            assertThat(audit.getData())
                    .containsEntry("action", "explode")
                    .hasEntrySatisfying(
                            "result",
                            result -> assertThat((String) result)
                                    .startsWith("error: unknown action 'explode'; use trigger, rerun, reshard, "));
        }
        assertThat(application.jobDisabled()).isFalse();
    }

    @Test
    void anItemOutsideTheJobsItemsIsRefusedByBothWithTheCoresReasonAndAudited() throws Exception {
        HttpResponse<String> endpoint =
                application.postJson("/actuator/sharding/orderSync/items/3", "{\"action\":\"disable\"}");
        HttpResponse<String> console = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-item", "item", "3"),
                application.fromAPage());

        assertThat(endpoint.statusCode()).isEqualTo(400);
        assertThat(console.statusCode()).isEqualTo(400);
        assertThat(nextAudit().getData()).isEqualTo(nextAudit().getData()).containsEntry("target", "item/3");
        assertThat(application.operations().job(JOB).orElseThrow().disabledItems())
                .isEmpty();
    }

    private static AuditEvent nextAudit() throws InterruptedException {
        AuditEvent event = application.bean(AuditEvents.class).events.poll(10, TimeUnit.SECONDS);
        assertThat(event).as("an audit event").isNotNull();
        return event;
    }

    @Configuration(proxyBeanMethods = false)
    static class Audited {

        @Bean
        AuditEvents operationAuditEvents() {
            return new AuditEvents();
        }
    }

    /** Keeps the audit events the application publishes. */
    static class AuditEvents implements ApplicationListener<AuditApplicationEvent> {

        final BlockingQueue<AuditEvent> events = new LinkedBlockingQueue<>();

        @Override
        public void onApplicationEvent(AuditApplicationEvent event) {
            events.add(event.getAuditEvent());
        }
    }
}
