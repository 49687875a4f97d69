package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/** Alerts of real jobs reach a real HTTP receiver on loopback, one request per job within the throttle. */
class ShardingAlertsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("alerts-test"))
            .withPropertyValues("sharding.alerts.enabled=true", "sharding.alerts.webhook.enabled=true");

    @Test
    void aFailedItemReachesTheWebhookAsJson() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            runner.withUserConfiguration(FailingJob.class)
                    .withPropertyValues("sharding.alerts.webhook.url=" + receiver.url())
                    .run(context -> {
                        JsonNode request = receiver.next(PATIENCE);

                        assertThat(request).as("a request").isNotNull();
                        assertThat(request.get("type").asString()).isEqualTo("ITEM_FAILED");
                        assertThat(request.get("job").asString()).isEqualTo("invoices");
                        assertThat(request.get("items").get(0).asInt()).isZero();
                        assertThat(request.get("instanceId").asString()).isEqualTo("alerts-test");
                        assertThat(request.get("message").asString()).contains("ledger locked");
                        assertThat(request.get("suppressed").asInt()).isZero();
                        assertThat(Instant.parse(request.get("fireTime").asString()))
                                .isBefore(Instant.parse(request.get("raisedAt").asString()));
                    });
        }
    }

    @Test
    void aFailedItemIsReportedOnceAfterItsRetriesNotForEachRun() {
        runner.withUserConfiguration(FailingJob.class)
                .withPropertyValues("sharding.alerts.webhook.enabled=false", "sharding.jobs.invoices.retries=1")
                .run(context -> {
                    ShardingOperations operations = context.getBean(ShardingOperations.class);
                    await().atMost(PATIENCE)
                            .until(() -> operations.recentAlerts().stream()
                                            .filter(alert -> alert.type() == ShardedJobAlert.Type.ITEM_FAILED)
                                            .count()
                                    >= 2);

                    assertThat(operations.recentAlerts())
                            .filteredOn(alert -> alert.type() == ShardedJobAlert.Type.ITEM_FAILED)
                            .allSatisfy(alert -> assertThat(alert.message())
                                    .startsWith("Item 0 failed after 1 retry: ")
                                    .contains("ledger locked"));
                    assertThat(operations.recentExecutions("invoices"))
                            .extracting(ExecutionRecord::retry)
                            .contains(0, 1);
                });
    }

    @Test
    void aFireMissedWhileEveryInstanceWasDownReachesTheWebhook() throws Exception {
        String namespace = TestZooKeeper.newNamespace();
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withPropertyValues(TestZooKeeper.properties(namespace, "first"))
                .withUserConfiguration(SucceedingJob.class)
                .run(context -> await().atMost(PATIENCE)
                        .until(() -> !context.getBean(ShardingOperations.class)
                                .recentExecutions("reports")
                                .isEmpty()));
        Instant down = Instant.now();
        // Every instance is down over a few fires.
        await().atMost(PATIENCE).until(() -> Instant.now().isAfter(down.plusSeconds(3)));

        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(ShardingAutoConfigurations.all())
                    .withPropertyValues(TestZooKeeper.properties(namespace, "second"))
                    .withPropertyValues(
                            "sharding.alerts.enabled=true",
                            "sharding.alerts.webhook.enabled=true",
                            "sharding.alerts.webhook.url=" + receiver.url())
                    .withUserConfiguration(SucceedingJob.class)
                    .run(context -> {
                        JsonNode request = receiver.next(PATIENCE);

                        assertThat(request).as("a request").isNotNull();
                        assertThat(request.get("type").asString()).isEqualTo("FIRE_MISSED");
                        assertThat(request.get("job").asString()).isEqualTo("reports");
                        assertThat(request.get("items").get(0).asInt()).isZero();
                        assertThat(request.get("instanceId").asString()).isEqualTo("second");
                        assertThat(Instant.parse(request.get("fireTime").asString()))
                                .isAfter(down.minusSeconds(1));
                        assertThat(request.get("message").asString()).contains("misfire policy ONCE");
                    });
        }
    }

    @Test
    void alertsOfOneJobWithinTheThrottleGiveOneRequestAndTheNextOneCountsThoseSuppressed() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            runner.withUserConfiguration(FailingJob.class, TestClock.class)
                    .withPropertyValues(
                            "sharding.alerts.webhook.url=" + receiver.url(), "sharding.alerts.webhook.throttle=1m")
                    .run(context -> {
                        ShardingOperations operations = context.getBean(ShardingOperations.class);
                        assertThat(receiver.next(PATIENCE))
                                .as("the first request")
                                .isNotNull();
                        // Failed items and fires of several fires, all within a minute of the first request.
                        await().atMost(PATIENCE)
                                .until(() -> operations.recentAlerts().size() >= 4);
                        assertThat(receiver.received()).isEmpty();

                        context.getBean(SettableClock.class).advance(Duration.ofMinutes(1));

                        JsonNode next = receiver.next(PATIENCE);
                        assertThat(next).as("the request after the throttle").isNotNull();
                        assertThat(next.get("suppressed").asInt()).isGreaterThanOrEqualTo(3);
                    });
        }
    }

    @Test
    void twoJobsAreThrottledEachOnItsOwn() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            runner.withUserConfiguration(FailingJob.class, OtherFailingJob.class, TestClock.class)
                    .withPropertyValues("sharding.alerts.webhook.url=" + receiver.url())
                    .run(context -> {
                        ShardingOperations operations = context.getBean(ShardingOperations.class);
                        await().atMost(PATIENCE)
                                .until(() -> operations.recentAlerts().stream()
                                                .filter(alert -> alert.job().equals("invoices"))
                                                .count()
                                        >= 4);
                        await().atMost(PATIENCE)
                                .until(() -> operations.recentAlerts().stream()
                                                .filter(alert -> alert.job().equals("payments"))
                                                .count()
                                        >= 4);

                        assertThat(receiver.received())
                                .extracting(request -> request.get("job").asString())
                                .containsExactlyInAnyOrder("invoices", "payments");
                    });
        }
    }

    @Test
    void aReceiverThatHangsNeitherSlowsNorFailsTheJob() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.hanging()) {
            runner.withUserConfiguration(FailingJob.class)
                    .withPropertyValues(
                            "sharding.alerts.webhook.url=" + receiver.url(),
                            "sharding.alerts.webhook.throttle=0s",
                            "sharding.alerts.webhook.timeout=1m")
                    .run(context -> {
                        ShardingOperations operations = context.getBean(ShardingOperations.class);
                        assertThat(receiver.next(PATIENCE))
                                .as("a request, never answered")
                                .isNotNull();

                        // The job keeps firing every second, on time, while the webhook waits for an answer.
                        await().atMost(PATIENCE)
                                .until(() ->
                                        operations.recentExecutions("invoices").size() >= 4);
                        assertThat(operations.recentExecutions("invoices").subList(0, 3))
                                .allSatisfy(execution -> assertThat(
                                                Duration.between(execution.fireTime(), execution.start()))
                                        .isLessThan(Duration.ofSeconds(1)));
                        assertThat(operations.recentAlerts()).hasSizeGreaterThanOrEqualTo(4);
                    });
        }
    }

    @Test
    void aReceiverThatIsDownNeitherSlowsNorFailsTheJob() {
        runner.withUserConfiguration(FailingJob.class)
                .withPropertyValues(
                        "sharding.alerts.webhook.url=http://127.0.0.1:" + ProcessGroup.freePort() + "/alerts",
                        "sharding.alerts.webhook.throttle=0s")
                .run(context -> {
                    ShardingOperations operations = context.getBean(ShardingOperations.class);

                    await().atMost(PATIENCE)
                            .until(() -> operations.recentExecutions("invoices").size() >= 4);
                    assertThat(operations.recentExecutions("invoices"))
                            .extracting(ExecutionRecord::outcome)
                            .containsOnly(ExecutionRecord.Outcome.FAILED);
                    assertThat(operations.recentAlerts()).hasSizeGreaterThanOrEqualTo(4);
                });
    }

    @Test
    void recentAlertsAreNewestFirst() throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start()) {
            runner.withUserConfiguration(FailingJob.class)
                    .withPropertyValues("sharding.alerts.webhook.url=" + receiver.url())
                    .run(context -> {
                        ShardingOperations operations = context.getBean(ShardingOperations.class);
                        await().atMost(PATIENCE)
                                .until(() -> operations.recentAlerts().size() >= 4);

                        List<ShardedJobAlert> alerts = operations.recentAlerts();
                        assertThat(alerts)
                                .extracting(ShardedJobAlert::raisedAt)
                                .isSortedAccordingTo(Comparator.reverseOrder());
                        assertThat(alerts)
                                .extracting(ShardedJobAlert::type)
                                .contains(ShardedJobAlert.Type.ITEM_FAILED, ShardedJobAlert.Type.FIRE_FAILED);
                        assertThat(alerts)
                                .filteredOn(alert -> alert.type() == ShardedJobAlert.Type.FIRE_FAILED)
                                .first()
                                .satisfies(alert -> {
                                    assertThat(alert.items()).containsExactly(0);
                                    assertThat(alert.message())
                                            .contains("1 of 1 items failed", "FAILED on alerts-test");
                                });
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingJob {

        @Bean
        Invoices invoices() {
            return new Invoices();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SucceedingJob {

        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OtherFailingJob {

        @Bean
        Payments payments() {
            return new Payments();
        }
    }

    /**
     * The application's clock, which the jobs' schedules read too: it runs with real time, so that the jobs fire every
     * second, and the test moves it on past the webhook's throttle.
     */
    @Configuration(proxyBeanMethods = false)
    static class TestClock {

        @Bean
        SettableClock clock() {
            return SettableClock.running();
        }
    }

    static class Invoices {

        @ShardedJob(name = "invoices", cron = "* * * * * *")
        void invoices(ShardingContext context) {
            throw new IllegalStateException("ledger locked");
        }
    }

    static class Reports {

        @ShardedJob(name = "reports", cron = "* * * * * *")
        void reports(ShardingContext context) {}
    }

    static class Payments {

        @ShardedJob(name = "payments", cron = "* * * * * *")
        void payments(ShardingContext context) {
            throw new IllegalStateException("gateway down");
        }
    }
}
