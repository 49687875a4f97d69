package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardingOperations;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@code #alerts} panel of a job's page (its alerts) and of the overview (every job's), and the overview's warning
 * from alerts: what this instance raised (failed items and fires, missed fires, overruns), newest first, from
 * {@link ShardingOperations#recentAlerts()}. Alerts are this instance's: a fire's failure is raised on the instance that completed it, a miss on each owner of
 * the missed items.
 */
final class AlertsPanel {

    /** Alerts shown in a panel at most. */
    static final int SHOWN = 20;

    /** How long an alert stays a warning on the overview. */
    static final Duration WARNS_FOR = Duration.ofHours(1);

    private AlertsPanel() {}

    /** The job page's panel: the job's alerts. */
    static void render(Html html, ShardingOperations operations, String job, Instant now) {
        render(html, of(operations, job), false, now);
    }

    /** The overview's panel: every job's alerts, each naming its job. */
    static void renderAll(Html html, ShardingOperations operations, Instant now) {
        render(html, operations.recentAlerts(), true, now);
    }

    private static void render(Html html, List<ShardedJobAlert> alerts, boolean withJob, Instant now) {
        html.raw("<section id=\"alerts\"><h2>Alerts</h2>");
        if (alerts.isEmpty()) {
            html.raw("<p class=\"none\">No alert raised on this instance")
                    .raw(" (alerts are raised when <code>sharding.alerts.enabled</code> is on).</p></section>");
            return;
        }
        html.raw("<table><thead><tr><th>raised</th>")
                .raw(withJob ? "<th>job</th>" : "")
                .raw("<th>alert</th><th>fire</th><th>items</th><th>by</th><th>what happened</th></tr></thead><tbody>");
        for (ShardedJobAlert alert : alerts.subList(0, Math.min(SHOWN, alerts.size()))) {
            html.raw("<tr class=\"alert\"")
                    .attr("data-type", alert.type())
                    .attr("data-job", alert.job())
                    .raw("><td>")
                    .time(alert.raisedAt(), now)
                    .raw("</td>");
            if (withJob) {
                html.raw("<td>").text(alert.job()).raw("</td>");
            }
            html.raw("<td>")
                    .text(alert.type())
                    .raw("</td><td>")
                    .text(alert.fireTime())
                    .raw("</td><td>")
                    .text(alert.items())
                    .raw("</td><td>")
                    .text(alert.instanceId())
                    .raw("</td><td>")
                    .text(alert.message())
                    .raw("</td></tr>");
        }
        html.raw("</tbody></table></section>");
    }

    /** The overview's warning: the job's newest alert, while it is recent. */
    static Optional<String> warning(ShardingOperations operations, String job, Instant now) {
        return of(operations, job).stream()
                .findFirst()
                .filter(alert -> alert.raisedAt().plus(WARNS_FOR).isAfter(now))
                .map(alert -> alert.type() + " for the fire of " + alert.fireTime() + ", items " + alert.items());
    }

    private static List<ShardedJobAlert> of(ShardingOperations operations, String job) {
        return operations.recentAlerts().stream()
                .filter(alert -> alert.job().equals(job))
                .toList();
    }
}
