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
 * The console's pages over real HTTP, read-only as it is by default (the {@code sharding} endpoint's access is not
 * unrestricted): what they show, that every value is escaped, and that an operation is refused and changes nothing.
 */
class ShardingConsolePagesTests {

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(false, List.of(ConsoleApplication.Service.class));
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @Test
    void theOverviewListsEveryJobWithItsScheduleLeaderEpochAndLastFires() {
        HttpResponse<String> page = application.get("/sharding-console");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        String html = page.body();
        assertThat(html)
                .contains("<table id=\"jobs\">")
                .contains("<tr data-job=\"orderSync\">")
                .containsPattern("<a href=\"[^\"]*/jobs/orderSync\">")
                .contains("<td class=\"cron\"><code>* * * * * *</code>")
                .containsPattern("<td class=\"next-fire\"><time datetime=\"\\d{4}-\\d\\d-\\d\\dT[^\"]+Z\">")
                .contains("<td class=\"leader\">console-test</td>")
                .containsPattern("<td class=\"epoch\">[1-9]\\d*</td>")
                .containsPattern("<td class=\"running\" data-count=\"\\d+\">")
                .contains("<span class=\"fire\" data-outcome=\"SUCCESS\"")
                .contains("in-memory execution log")
                .contains("src=\"/sharding-console/assets/htmx.min.js\"")
                .contains("hx-get=\"/sharding-console/overview\"")
                .contains("hx-trigger=\"every 1000ms\"");
    }

    @Test
    void aJobsPageShowsItsGridOfItemsByInstanceAndItsRecentFires() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String html = application.get("/sharding-console/jobs/orderSync").body();
            assertThat(html)
                    .contains("<table id=\"grid\">")
                    .contains("<th data-instance=\"console-test\"")
                    .containsPattern("<tr data-item=\"0\" data-owner=\"console-test\" data-running=\"(true|false)\"")
                    .containsPattern("<tr data-item=\"2\" data-owner=\"console-test\"")
                    .doesNotContain("data-item=\"3\" data-owner")
                    .contains("<table id=\"fires\">")
                    .containsPattern(
                            "<tr data-fire-time=\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\" data-source=\"NORMAL\"")
                    .contains("<section id=\"alerts\">")
                    .contains("hx-get=\"/sharding-console/jobs/orderSync/live\"");
        });
        String live = application.get("/sharding-console/jobs/orderSync/live").body();
        assertThat(live).contains("<table id=\"grid\">").doesNotContain("<html");
    }

    @Test
    void aJobsPageMarksAnInstanceThatStandsByWhileItsApplicationIsNotReady() {
        JobCoordinator job = application.operations().job(JOB).orElseThrow();
        job.standBy();
        try {
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () -> assertThat(application
                                            .get("/sharding-console/jobs/orderSync")
                                            .body())
                                    .containsPattern(
                                            "<th data-instance=\"console-test\"[^>]*><code>console-test</code>"
                                                    + "[^<]*(<small>[^<]*</small>[^<]*)*<small class=\"standing-by\">standing by</small>"));
        } finally {
            job.resume();
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(application
                                .get("/sharding-console/jobs/orderSync")
                                .body())
                        .contains("<th data-instance=\"console-test\"")
                        .doesNotContain("standing by"));
    }

    @Test
    void aJobsPageDrawsItsRecentItemRunsAsBarsInALanePerInstance() {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(application
                                .get("/sharding-console/jobs/orderSync")
                                .body())
                        .contains("<svg id=\"timeline\"")
                        .contains("<g class=\"lane\" data-instance=\"console-test\">")
                        .containsPattern("<rect class=\"run\" data-job=\"orderSync\" data-item=\"2\""
                                + " data-instance=\"console-test\" data-fire-time=\"[^\"]+\" data-outcome=\"SUCCEEDED\""
                                + " x=\"[\\d.]+\" y=\"[\\d.]+\" width=\"[\\d.]+\" height=\"16\"><title>orderSync item 2, fire"
                                + " [^<]+, on console-test: succeeded in \\d+ ms</title></rect>"));
    }

    @Test
    void everyValueIsEscapedSoThatMarkupInAJobsSettingsNeverRuns() {
        String html = application.get("/sharding-console/jobs/orderSync").body();
        assertThat(html)
                .contains("&lt;script&gt;alert(&#39;job&#39;)&lt;/script&gt;")
                .contains("&lt;b&gt;Beijing&lt;/b&gt;")
                .doesNotContain(ConsoleApplication.JOB_PARAMETER)
                .doesNotContain("<b>Beijing</b>");
        String missing = application.get("/sharding-console/jobs/%3Cscript%3Ex").body();
        assertThat(missing).contains("&lt;script&gt;x").doesNotContain("<script>x");
    }

    @Test
    void aReadOnlyConsoleOffersNoOperation() {
        for (String path : List.of("/sharding-console", "/sharding-console/jobs/orderSync")) {
            String html = application.get(path).body();
            assertThat(html)
                    .contains("id=\"read-only\"")
                    .doesNotContain("data-action=")
                    .doesNotContain("id=\"confirm\"");
        }
    }

    @Test
    void aReadOnlyConsoleRefusesAnOperationAndChangesNothing() {
        HttpResponse<String> answer = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-item", "item", "1"),
                application.fromAPage());
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.body()).contains("data-status=\"refused\"").contains("read-only");
        assertThat(application.operations().job(JOB).orElseThrow().disabledItems())
                .isEmpty();
    }

    @Test
    void servesHtmxAndItsOwnScriptFromTheClassPath() {
        HttpResponse<String> htmx = application.get("/sharding-console/assets/htmx.min.js");
        assertThat(htmx.statusCode()).isEqualTo(200);
        assertThat(htmx.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
        assertThat(htmx.body()).contains("htmx");
        assertThat(application.get("/sharding-console/assets/console.js").body())
                .contains("showModal", "data-status");
        assertThat(application.get("/sharding-console/assets/console.css").statusCode())
                .isEqualTo(200);
        assertThat(application.get("/sharding-console/assets/other.js").statusCode())
                .isEqualTo(404);
    }

    @Test
    void anUnknownJobIsNotFound() {
        assertThat(application.get("/sharding-console/jobs/noSuchJob").statusCode())
                .isEqualTo(404);
    }
}
