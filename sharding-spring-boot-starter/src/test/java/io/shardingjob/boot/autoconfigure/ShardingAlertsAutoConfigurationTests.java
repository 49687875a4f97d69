package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.alerts.AlertHistory;
import io.shardingjob.boot.alerts.ShardingAlertWebhook;
import io.shardingjob.boot.alerts.ShardingAlerts;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.web.client.RestClient;

/** Alerts are off unless asked for; the webhook needs its url and spring-web, and gives way to the user's sender. */
class ShardingAlertsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("alerts-config-test"));

    @Test
    void raisesNoAlertsByDefault() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(ShardingAlerts.class);
            assertThat(context).doesNotHaveBean(AlertHistory.class);
            assertThat(context).doesNotHaveBean(ShardingAlertWebhook.class);
            assertThat(context.getBean(ShardingOperations.class).recentAlerts()).isEmpty();
        });
    }

    @Test
    void raisesAlertsWithoutAWebhookWhenOnlyAlertsAreEnabled() {
        runner.withPropertyValues("sharding.alerts.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(ShardingAlerts.class);
            assertThat(context).hasSingleBean(AlertHistory.class);
            assertThat(context).doesNotHaveBean(ShardingAlertWebhook.class);
        });
    }

    @Test
    void raisesNoAlertsWhenShardedJobsAreDisabled() {
        runner.withPropertyValues("sharding.enabled=false", "sharding.alerts.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(ShardingAlerts.class));
    }

    @Test
    void postsToTheWebhookWhenItIsEnabledWithAUrl() {
        runner.withPropertyValues(
                        "sharding.alerts.enabled=true",
                        "sharding.alerts.webhook.enabled=true",
                        "sharding.alerts.webhook.url=http://127.0.0.1:9/alerts")
                .run(context -> assertThat(context).hasSingleBean(ShardingAlertWebhook.class));
    }

    @Test
    void aWebhookEnabledWithoutAUrlFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("sharding.alerts.enabled=true", "sharding.alerts.webhook.enabled=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis =
                            new InvalidShardingPropertyFailureAnalyzer().analyze(context.getStartupFailure());

                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains(
                                    "sharding.alerts.webhook.url", "is required when sharding.alerts.webhook.enabled");
                    assertThat(analysis.getAction())
                            .contains("Set sharding.alerts.webhook.url", "sharding.alerts.webhook.enabled=false");
                });
    }

    @Test
    void theFailureAnalyzerIsRegistered() {
        // Boot's own analyzers need the bean factory to be made: only ours are of interest.
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
                        .load(
                                FailureAnalyzer.class,
                                null,
                                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {})))
                .hasAtLeastOneElementOfType(InvalidShardingPropertyFailureAnalyzer.class);
    }

    @Test
    void theWebhookGivesWayToTheUsersOwn() {
        runner.withUserConfiguration(UsersWebhook.class)
                .withPropertyValues("sharding.alerts.enabled=true", "sharding.alerts.webhook.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context)
                            .getBean(ShardingAlertWebhook.class)
                            .isSameAs(context.getBean(UsersWebhook.class).webhook);
                });
    }

    @Test
    void withoutSpringWebThereIsNoWebhookButAlertsStillAre() {
        runner.withClassLoader(new FilteredClassLoader(RestClient.class))
                .withPropertyValues(
                        "sharding.alerts.enabled=true",
                        "sharding.alerts.webhook.enabled=true",
                        "sharding.alerts.webhook.url=http://127.0.0.1:9/alerts")
                .run(context -> {
                    assertThat(context).hasSingleBean(ShardingAlerts.class);
                    assertThat(context).doesNotHaveBean(ShardingAlertWebhook.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class UsersWebhook {

        final ShardingAlertWebhook webhook = new ShardingAlertWebhook(
                RestClient.create(), URI.create("http://127.0.0.1:9/mine"), Duration.ofMinutes(1), Clock.systemUTC());

        @Bean
        ShardingAlertWebhook myWebhook() {
            return webhook;
        }
    }
}
