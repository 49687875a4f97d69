package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The alerts this instance raised, on the job's page and as the overview's warning. */
class ShardingConsoleAlertsTests {

    private static final String JOB = "ledgerClose";

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                false, List.of(ConsoleApplication.Service.class, FailingJobs.class), "sharding.alerts.enabled=true");
    }

    @AfterAll
    static void stop() {
        if (application != null) {
            application.close();
        }
    }

    @Test
    void aFailedItemShowsInTheJobsAlertsEscapedAndOnTheOverviewWithAWarning() {
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(
                                application.get("/sharding-console/jobs/" + JOB).body())
                        .contains("<tr class=\"alert\" data-type=\"ITEM_FAILED\"")
                        .contains("&lt;img src=x&gt; is locked")
                        .doesNotContain("<img src=x>"));

        assertThat(application.get("/sharding-console").body())
                .containsPattern("<span class=\"warning\">(ITEM|FIRE)_FAILED for the fire of ")
                .contains("<tr class=\"alert\" data-type=\"ITEM_FAILED\" data-job=\"" + JOB + "\">")
                .doesNotContain("data-job=\"orderSync\"><td><time");
    }

    /** Beside the console's own job, one whose item 1 always fails. */
    @Configuration(proxyBeanMethods = false)
    static class FailingJobs {

        @Bean
        FailingJob failingJob() {
            return new FailingJob();
        }
    }

    static class FailingJob {

        @ShardedJob(name = JOB, cron = "* * * * * *", shardingTotalCount = 2)
        void run(ShardingContext context) {
            if (context.item() == 1) {
                throw new IllegalStateException("<img src=x> is locked");
            }
        }
    }
}
