package io.shardingjob.boot.console;

import static io.shardingjob.boot.console.ConsoleApplication.JOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's operations when the {@code sharding} endpoint's access is unrestricted and Spring Security is absent:
 * they work from a console page (htmx's header, this origin) and are refused from anywhere else.
 */
class ShardingConsoleOperationsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                false,
                List.of(ConsoleApplication.Service.class),
                "management.endpoint.sharding.access=unrestricted",
                "management.endpoints.web.exposure.include=sharding,shardingconsole");
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @Test
    void pagesOfferEveryOperationBehindAConfirmationDialog() {
        String overview = application.get("/sharding-console").body();
        assertThat(overview)
                .doesNotContain("id=\"read-only\"")
                .contains("data-action=\"trigger\" data-job=\"orderSync\"")
                .contains("<dialog id=\"confirm\">");
        String job = application.get("/sharding-console/jobs/orderSync").body();
        assertThat(job)
                .contains("data-action=\"trigger\"", "data-action=\"reshard\"", "data-action=\"disable-job\"")
                .containsPattern(
                        "data-action=\"disable-item\" data-job=\"orderSync\" data-confirm=\"[^\"]*\" data-item=\"0\"")
                .containsPattern(
                        "data-action=\"disable-instance\" data-job=\"orderSync\" data-confirm=\"[^\"]*\" data-instance=\"console-test\"")
                .contains("<input id=\"job-parameter\"", "id=\"confirm-yes\"", "<output id=\"result\"");
    }

    @Test
    void anOperationFromAConsolePageIsPerformed() {
        JobCoordinator job = application.operations().job(JOB).orElseThrow();
        HttpResponse<String> disable = operate("disable-item", "item", "2");
        assertThat(disable.statusCode()).as(disable.body()).isEqualTo(200);
        assertThat(disable.body()).contains("data-status=\"ok\"").contains("item 2 disabled");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).containsExactly(2));
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(application
                                .get("/sharding-console/jobs/orderSync/live")
                                .body())
                        .contains("data-action=\"enable-item\" data-job=\"orderSync\""));
        assertThat(operate("enable-item", "item", "2").statusCode()).isEqualTo(200);
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).isEmpty());
    }

    @Test
    void aTriggerFromAConsolePageFiresTheJobNow() {
        HttpResponse<String> trigger = operate("trigger", "jobParameter", "");
        assertThat(trigger.statusCode()).as(trigger.body()).isEqualTo(200);
        assertThat(trigger.body()).contains("data-status=\"ok\"").contains("started on every instance");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(application
                                .get("/sharding-console/jobs/orderSync/live")
                                .body())
                        .contains("data-source=\"MANUAL\""));
    }

    @Test
    void aTriggerWithAJobParameterNamesItInItsResult() {
        HttpResponse<String> trigger = operate("trigger", "jobParameter", "eu-only");

        assertThat(trigger.statusCode()).as(trigger.body()).isEqualTo(200);
        assertThat(trigger.body()).contains("data-status=\"ok\"").contains("job parameter &#39;eu-only&#39;");
    }

    @Test
    void aBadItemIsAnErrorNotAChange() {
        HttpResponse<String> answer = operate("disable-item", "item", "7");
        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.body()).contains("data-status=\"error\"");
        assertThat(operate("explode", "item", "1").statusCode()).isEqualTo(400);
        assertThat(application
                        .post(
                                "/sharding-console/jobs/noSuchJob/operations",
                                Map.of("action", "reshard"),
                                application.fromAPage())
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void anItemOutsideTheJobsItemsIsRefusedWithTheReasonAndNothingIsDisabled() {
        HttpResponse<String> answer = operate("disable-item", "item", "3");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.body())
                .contains("data-status=\"error\"")
                .contains("&#39;orderSync&#39;", "item 3 is outside 0..2");
        assertThat(application.operations().job(JOB).orElseThrow().disabledItems())
                .isEmpty();
        assertThat(operate("disable-instance", "instance", "no*such").statusCode())
                .isEqualTo(400);
    }

    @Test
    void disablingAnInstanceThatIsNotRegisteredIsRefusedWithTheReason() {
        HttpResponse<String> answer = operate("disable-instance", "instance", "console-tset");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(answer.body())
                .contains("data-status=\"error\"")
                .contains("&#39;console-tset&#39; is not a registered instance", "registered: console-test");
        assertThat(operate("enable-instance", "instance", "console-tset").statusCode())
                .isEqualTo(400);
    }

    @Test
    void anItemSentWithTheJobsDisableIsRefusedRatherThanDisableTheWholeJob() {
        HttpResponse<String> answer = operate(Map.of("action", "disable-job", "item", "1"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(answer.body())
                .contains("data-status=\"error\"")
                .contains("disable-job does not take &#39;item&#39;", "disable-item takes item", "nothing was changed");
        assertThat(application.jobDisabled()).isFalse();
    }

    @Test
    void aFieldNoActionTakesIsRefused() {
        HttpResponse<String> answer = operate(Map.of("action", "disable-item", "item", "1", "itme", "2"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        assertThat(answer.body()).contains("disable-item does not take &#39;itme&#39; (it takes item)");
        assertThat(application.operations().job(JOB).orElseThrow().disabledItems())
                .isEmpty();
        HttpResponse<String> trigger = operate(Map.of("action", "trigger", "jobParamter", "eu-only"));
        assertThat(trigger.statusCode()).as(trigger.body()).isEqualTo(400);
        assertThat(trigger.body()).contains("trigger does not take &#39;jobParamter&#39; (it takes jobParameter)");
    }

    @Test
    void theDialogsEmptyFieldsAreNoFieldsItsActionDoesNotTake() {
        // The dialog sends every field of its form, empty where the operation takes none.
        HttpResponse<String> answer = operate(Map.of(
                "job", JOB, "action", "reshard", "item", "", "instance", "", "fireTime", "", "jobParameter", ""));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("data-status=\"ok\"");
    }

    @Test
    void aRefusedTypoChangesNothing() {
        JobCoordinator job = application.operations().job(JOB).orElseThrow();
        List<Map<String, String>> typos = List.of(
                Map.of("action", "disable-job", "item", "1"),
                Map.of("action", "disable-job", "instance", "console-test"),
                Map.of("action", "disable-instance", "instance", "no-such-pod"),
                Map.of("action", "disable-item", "item", "1", "itme", "2"),
                Map.of("action", "enable-instance", "instance", "no-such-pod"));
        for (Map<String, String> typo : typos) {
            HttpResponse<String> refused = operate(typo);
            assertThat(refused.statusCode()).as("%s: %s", typo, refused.body()).isEqualTo(400);
        }

        // A change asked after the typos, once seen, shows that any change of theirs would have been seen too: the
        // registry's cache applies ZooKeeper's changes in the order they were written.
        assertThat(operate("disable-item", "item", "0").statusCode()).isEqualTo(200);
        try {
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(job.disabledItems()).containsExactly(0));
            assertThat(application.jobDisabled()).isFalse();
            assertThat(job.disabledInstances()).isEmpty();
        } finally {
            assertThat(operate("enable-item", "item", "0").statusCode()).isEqualTo(200);
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(job.disabledItems()).isEmpty());
        }
    }

    @Test
    void aTriggerWithAJobParameterTooLargeForTheLedgerIsRefusedAndTheApplicationStaysConnected() {
        HttpResponse<String> tooLarge = operate("trigger", "jobParameter", "x".repeat(17 * 1024));
        assertThat(tooLarge.statusCode()).isEqualTo(400);
        assertThat(tooLarge.body()).contains("data-status=\"error\"").contains("17408 bytes", "16384");

        HttpResponse<String> twoMegabytes = operate("trigger", "jobParameter", "x".repeat(2 * 1024 * 1024));
        assertThat(twoMegabytes.statusCode()).isEqualTo(400);
        assertThat(twoMegabytes.body()).contains("data-status=\"error\"").contains("16384");
        assertThat(application.operations().isConnected()).isTrue();
        assertThat(application.operations().job(JOB).orElseThrow().isAvailable())
                .isTrue();
    }

    @Test
    void anOperationWithoutHtmxsHeaderIsRefusedAsItMayComeFromAnotherSitesForm() {
        HttpResponse<String> answer =
                application.post("/sharding-console/jobs/orderSync/operations", Map.of("action", "disable-job"));
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.body()).contains("data-status=\"refused\"").contains("HX-Request");
        assertThat(application.jobDisabled()).isFalse();
    }

    @Test
    void anOperationFromAnotherOriginIsRefused() {
        HttpResponse<String> crossOrigin = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-job"),
                "HX-Request",
                "true",
                "Origin",
                "http://attacker.example");
        assertThat(crossOrigin.statusCode()).isEqualTo(403);
        assertThat(crossOrigin.body()).contains("data-status=\"refused\"").contains("another origin");
        HttpResponse<String> crossSite = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-job"),
                "HX-Request",
                "true",
                "Sec-Fetch-Site",
                "cross-site");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(application.jobDisabled()).isFalse();
    }

    @Test
    void theActuatorRootLinksToTheConsole() {
        HttpResponse<String> root = application.get("/actuator");
        assertThat(root.body()).containsPattern("\"shardingconsole\":\\{\"href\":\"[^\"]*/actuator/shardingconsole\"");
        HttpResponse<String> link = application.get("/actuator/shardingconsole");
        assertThat(link.statusCode()).isEqualTo(200);
        assertThat(link.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(link.body()).contains("<a href=\"/sharding-console\">");
    }

    private HttpResponse<String> operate(String action, String field, String value) {
        return operate(Map.of("action", action, field, value));
    }

    private HttpResponse<String> operate(Map<String, String> form) {
        return application.post("/sharding-console/jobs/orderSync/operations", form, application.fromAPage());
    }
}
