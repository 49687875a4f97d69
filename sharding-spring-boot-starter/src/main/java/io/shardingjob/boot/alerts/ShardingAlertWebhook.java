package io.shardingjob.boot.alerts;

import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardedJobAlertListener;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * Posts alerts as JSON to a webhook ({@code sharding.alerts.webhook.*}), at most one request per job within the
 * throttle: the first alert of a job is sent at once, the ones after it within the throttle are counted, and the next
 * alert sent for that job says how many were suppressed ({@code "suppressed"}). A burst of alerts thus costs the
 * receiver one request, and an operator learns of it at once.
 *
 * <p>Requests go out on a thread of its own with a bounded queue, so a slow or absent receiver delays no job and no
 * other listener: beyond {@value #QUEUE_CAPACITY} waiting requests new ones are dropped. A receiver that fails is
 * logged once per outage (at its first failure, and when it answers again), not once per alert; nothing is retried.
 *
 * <p>Declare a bean of this type (with a {@link RestClient} of your own, for authentication, say) to replace the one
 * the starter makes from the properties.
 */
public final class ShardingAlertWebhook implements ShardedJobAlertListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardingAlertWebhook.class);

    /** Requests waiting to be sent at most. */
    public static final int QUEUE_CAPACITY = 100;

    private final RestClient client;

    private final URI url;

    private final Duration throttle;

    private final Clock clock;

    private final ThreadPoolExecutor sender;

    /** By job: when its last request was let through, and the alerts suppressed since. */
    private final Map<String, Window> windows = new HashMap<>();

    private final AtomicBoolean failing = new AtomicBoolean();

    private final AtomicBoolean dropping = new AtomicBoolean();

    /**
     * @param client the client to post with; its request factory should bound connecting and reading
     * @param url where to post
     * @param throttle the shortest time between two requests for one job
     * @param clock the clock of the throttle
     */
    public ShardingAlertWebhook(RestClient client, URI url, Duration throttle, Clock clock) {
        this.client = client;
        this.url = url;
        this.throttle = throttle;
        this.clock = clock;
        this.sender = new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE_CAPACITY), runnable -> {
                    Thread thread = new Thread(runnable, "sharding-alert-webhook");
                    thread.setDaemon(true);
                    return thread;
                });
    }

    @Override
    public void onAlert(ShardedJobAlert alert) {
        Integer suppressed = admit(alert.job(), clock.instant());
        if (suppressed == null) {
            return;
        }
        try {
            sender.execute(() -> send(alert, suppressed));
            dropping.set(false);
        } catch (RejectedExecutionException full) {
            if (!sender.isShutdown() && dropping.compareAndSet(false, true)) {
                log.warn(
                        "Alert webhook {}: {} requests wait already; dropping new alerts: {}",
                        url,
                        QUEUE_CAPACITY,
                        alert);
            }
        }
    }

    /**
     * Whether the job's alert may be sent now: the number of its alerts suppressed since its last request, or null when
     * this one is suppressed too (and counted).
     */
    private synchronized @Nullable Integer admit(String job, Instant now) {
        Window window = windows.get(job);
        if (window != null && now.isBefore(window.opened().plus(throttle))) {
            windows.put(job, new Window(window.opened(), window.suppressed() + 1));
            return null;
        }
        windows.put(job, new Window(now, 0));
        return window == null ? 0 : window.suppressed();
    }

    private void send(ShardedJobAlert alert, int suppressed) {
        try {
            client.post()
                    .uri(url)
                    .contentType(MediaType.APPLICATION_JSON)
                    .body(AlertJson.write(alert, suppressed))
                    .retrieve()
                    .toBodilessEntity();
            if (failing.compareAndSet(true, false)) {
                log.info("Alert webhook {} answers again", url);
            }
        } catch (RuntimeException ex) {
            if (sender.isShutdown()) {
                log.debug("Alert webhook {}: not sent at shutdown: {}", url, ex.toString());
            } else if (failing.compareAndSet(false, true)) {
                log.warn(
                        "Alert webhook {} failed; alerts are lost until it answers again (logged once): {}",
                        url,
                        ex.toString());
            } else {
                log.debug("Alert webhook {} still failing: {}", url, ex.toString());
            }
        }
    }

    /** Sends what is queued for a moment, then stops. */
    @Override
    public void close() {
        sender.shutdown();
        try {
            if (!sender.awaitTermination(1, TimeUnit.SECONDS)) {
                sender.shutdownNow();
            }
        } catch (InterruptedException ex) {
            sender.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private record Window(Instant opened, int suppressed) {}
}
