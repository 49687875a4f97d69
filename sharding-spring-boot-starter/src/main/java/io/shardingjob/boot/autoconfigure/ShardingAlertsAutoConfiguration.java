package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardedJobAlertListener;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.alerts.AlertHistory;
import io.shardingjob.boot.alerts.ShardingAlertWebhook;
import io.shardingjob.boot.alerts.ShardingAlerts;
import io.shardingjob.boot.jobs.RunningJobs;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Alerts of the sharded jobs when {@code sharding.alerts.enabled=true}: failed items and fires, missed fires and fires
 * that overran, handed to every {@link ShardedJobAlertListener} bean, kept in memory for
 * {@code ShardingOperations.recentAlerts()}, and posted to a webhook when {@code sharding.alerts.webhook.enabled=true}
 * and spring-web is on the class path. Off by default: failed-fire detection tracks the completion of every fire
 * across the cluster, which costs two ZooKeeper reads per fire and instance.
 *
 * <p>Time (alerts' {@code raisedAt}, the webhook's throttle) comes from the application's {@link Clock} bean when it has
 * one, else from the system clock.
 */
@AutoConfiguration(after = ShardedJobsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("sharding.alerts.enabled")
@ConditionalOnBean(RunningJobs.class)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingAlertsAutoConfiguration {

    /** Raises the alerts; as a completion listener bean it turns on the completion tracking of every job. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ShardingAlerts shardingAlerts(
            ShardingOperations jobs, ObjectProvider<ShardedJobAlertListener> listeners, ObjectProvider<Clock> clock) {
        return new ShardingAlerts(
                jobs, () -> listeners.orderedStream().toList(), clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    AlertHistory shardingAlertHistory(ShardingProperties properties) {
        return new AlertHistory(properties.getAlerts().getHistorySize());
    }

    /** The webhook sender, with spring-web's {@link RestClient}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClient.class)
    @ConditionalOnBooleanProperty("sharding.alerts.webhook.enabled")
    static class WebhookConfiguration {

        /**
         * Posts with a copy of Boot's {@link RestClient.Builder} when there is one (its interceptors and default
         * headers apply), over a JDK client bounded by {@code sharding.alerts.webhook.timeout}.
         */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        ShardingAlertWebhook shardingAlertWebhook(
                ShardingProperties properties,
                ObjectProvider<RestClient.Builder> builders,
                ObjectProvider<Clock> clock) {
            AlertsProperties.Webhook webhook = properties.getAlerts().getWebhook();
            URI url = webhook.getUrl();
            if (url == null) {
                throw new InvalidShardingPropertyException(
                        "sharding.alerts.webhook.url",
                        "is required when sharding.alerts.webhook.enabled is true",
                        "Set sharding.alerts.webhook.url to the address that receives the alerts, or set"
                                + " sharding.alerts.webhook.enabled=false.");
            }
            JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(
                    HttpClient.newBuilder().connectTimeout(webhook.getTimeout()).build());
            requests.setReadTimeout(webhook.getTimeout());
            RestClient client = builders.getIfAvailable(RestClient::builder)
                    .clone()
                    .requestFactory(requests)
                    .build();
            return new ShardingAlertWebhook(client, url, webhook.getThrottle(), clock.getIfAvailable(Clock::systemUTC));
        }
    }
}
