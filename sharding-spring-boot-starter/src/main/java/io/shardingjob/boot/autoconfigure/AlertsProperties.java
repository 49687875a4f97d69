package io.shardingjob.boot.autoconfigure;

import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@code sharding.alerts.*}: alerts of failed items and fires, missed fires and fires that overran into the next, to
 * every {@code ShardedJobAlertListener} bean and, when enabled, to a webhook. Detecting failed fires tracks every
 * fire's completion across the cluster, which costs two ZooKeeper reads per fire and instance (and a write per item).
 */
public class AlertsProperties {

    /** Whether to raise alerts; failed-fire detection costs two ZooKeeper reads per fire and instance. */
    private boolean enabled;

    /** Alerts kept in memory on this instance for operators, newest first. */
    private int historySize = 100;

    /** The webhook that receives every alert as JSON. */
    private final Webhook webhook = new Webhook();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getHistorySize() {
        return historySize;
    }

    public void setHistorySize(int historySize) {
        this.historySize = historySize;
    }

    public Webhook getWebhook() {
        return webhook;
    }

    /** An HTTP endpoint that receives alerts as JSON, at most one request per job within the throttle. */
    public static class Webhook {

        /** Whether to POST every alert as JSON to the url; needs spring-web on the class path. */
        private boolean enabled;

        /** The address the alerts are posted to; required when the webhook is enabled. */
        private @Nullable URI url;

        /** The shortest time between two requests for one job; alerts in between are counted and reported with the next. */
        private Duration throttle = Duration.ofMinutes(5);

        /** How long connecting to the receiver, and then its answer, may take. */
        private Duration timeout = Duration.ofSeconds(5);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable URI getUrl() {
            return url;
        }

        public void setUrl(@Nullable URI url) {
            this.url = url;
        }

        public Duration getThrottle() {
            return throttle;
        }

        public void setThrottle(Duration throttle) {
            this.throttle = throttle;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
