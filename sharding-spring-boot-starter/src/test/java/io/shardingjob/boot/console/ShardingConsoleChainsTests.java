package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The graph of jobs and a fire down its chain, over real HTTP: {@code settle} fires every second, {@code export}
 * follows it item-wise on completion and fires only then (no cron), beside the console test's {@code orderSync}, which
 * follows nothing.
 */
class ShardingConsoleChainsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(false, List.of(ConsoleApplication.Service.class, Chain.class));
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @Test
    void theOverviewLinksToTheGraphOfJobs() {
        assertThat(application.get("/sharding-console").body())
                .contains("<a id=\"graph-link\" href=\"/sharding-console/graph\">");
    }

    @Test
    void theGraphDrawsEveryJobAsALinkAndAnArrowFromEachUpstreamToItsFollower() {
        String html = application.get("/sharding-console/graph").body();

        assertThat(html)
                .contains("<svg id=\"job-graph\"")
                .contains("<g class=\"job\" data-job=\"orderSync\">")
                .contains("<g class=\"job\" data-job=\"settle\">")
                .contains("<g class=\"job on-demand\" data-job=\"export\" data-on-demand=\"true\">")
                .contains("<a href=\"/sharding-console/jobs/export\">")
                .contains("<g class=\"edge\" data-from=\"settle\" data-to=\"export\" data-label=\"completion,"
                        + " item-wise\">")
                .contains(">on demand</text>")
                .doesNotContain("data-to=\"orderSync\"")
                .doesNotContain("<script>alert");
        assertThat(html.split("<g class=\"edge\"", -1)).hasSize(2);
    }

    @Test
    void aChainedJobsPageShowsItsNewestFireDownTheChainAndEachFireLinksToItsOwn() {
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(
                                application.get("/sharding-console/jobs/settle").body())
                        .containsPattern("<table id=\"chain\" data-fire-time=\"[^\"]+\">")
                        .containsPattern("<tr data-job=\"settle\" data-fired=\"true\" class=\"layer-0 this-job\">.*?"
                                + "<li data-item=\"0\" data-state=\"(SUCCEEDED|RUNNING)\"")
                        .containsPattern("<tr data-job=\"export\" data-fired=\"(true|false)\" class=\"layer-1\">")
                        .contains("<td class=\"follows\">settle <small>on completion, item-wise</small></td>")
                        .contains("class=\"chain-link\""));

        Instant older = application.operations().job("settle").orElseThrow().ledger().recentFires(5).stream()
                .map(LedgerFire::fireTime)
                .reduce((newer, earlier) -> earlier)
                .orElseThrow();
        String asked = application
                .get("/sharding-console/jobs/settle?fire=" + older.toEpochMilli())
                .body();
        assertThat(asked)
                .contains("<table id=\"chain\" data-fire-time=\"" + older + "\">")
                .contains("hx-get=\"/sharding-console/jobs/settle/live?fire=" + older.toEpochMilli() + "\"");
        // The follower's own page shows the chain at its newest fire, which the settlement's items handed on to it.
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(
                                application.get("/sharding-console/jobs/export").body())
                        .containsPattern("<tr data-job=\"export\" data-fired=\"true\" class=\"layer-1 this-job\">"
                                + ".*?<li data-item=\"0\" data-state=\"SUCCEEDED\""));
    }

    @Test
    void aJobInNoChainShowsNoChain() {
        assertThat(application.get("/sharding-console/jobs/orderSync").body())
                .doesNotContain("id=\"chain\"")
                .doesNotContain("class=\"chain-link\"");
    }

    /** settle, fired every second, and export, which follows it. */
    @Configuration(proxyBeanMethods = false)
    static class Chain {

        @Bean
        ChainJobs chainJobs() {
            return new ChainJobs();
        }

        /** Until the annotation says {@code after}, a customizer does. */
        @Bean
        ShardedJobConfigurationCustomizer exportFollowsSettle() {
            return (job, configuration) -> {
                if (job.equals("export")) {
                    configuration.after("settle").on(FollowOn.COMPLETION).itemWise(true);
                }
            };
        }
    }

    static class ChainJobs {

        @ShardedJob(name = "settle", cron = "* * * * * *", shardingTotalCount = 2)
        void settle(ShardingContext context) {}

        @ShardedJob(name = "export", shardingTotalCount = 2)
        void export(ShardingContext context) {}
    }
}
