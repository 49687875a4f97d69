package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.registry.ClockSkew;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * {@code GET {path}}: every job with its schedule, leader, epoch, items running now and the outcomes of its last fires,
 * with a warning for what needs a look. The table refreshes itself from {@code {path}/overview}.
 */
final class OverviewPage {

    /** A next fire this far in the past means the schedule is late (a busy scheduler, or a long pause). */
    private static final Duration LATE = Duration.ofSeconds(5);

    private final ShardingOperations operations;

    OverviewPage(ShardingOperations operations) {
        this.operations = operations;
    }

    String page(PageContext context) {
        return Layout.page(context, "Sharded jobs", html -> {
            html.raw("<h1>Sharded jobs</h1><p class=\"views\"><a id=\"graph-link\"")
                    .attr("href", context.base() + "/graph")
                    .raw(">Graph of jobs</a> <small>which job follows which</small></p><div id=\"overview\"")
                    .attr("hx-get", context.base() + "/overview")
                    .attr("hx-trigger", context.poll())
                    .raw(" hx-swap=\"innerHTML\">");
            table(html, context);
            html.raw("</div>");
        });
    }

    String fragment(PageContext context) {
        Html html = new Html();
        table(html, context);
        return html.toString();
    }

    private void table(Html html, PageContext context) {
        clockSkewWarning(html);
        List<JobCoordinator> jobs = operations.jobs();
        String scope = null;
        html.raw("<table id=\"jobs\"><thead><tr><th>job</th><th>cron</th><th>next fire</th><th>leader</th>")
                .raw("<th>epoch</th><th>last fires (oldest to newest)</th><th>running now</th><th>warnings</th>");
        if (context.writable()) {
            html.raw("<th></th>");
        }
        html.raw("</tr></thead><tbody>");
        for (JobCoordinator job : jobs) {
            JobHistory history = row(html, context, job);
            if (scope == null) {
                scope = history.scope();
            }
        }
        html.raw("</tbody></table>");
        if (jobs.isEmpty()) {
            html.raw("<p class=\"none\">No sharded job runs on this instance.</p>");
        }
        if (scope != null) {
            html.raw("<p class=\"log-scope\">").text(scope).raw("</p>");
        }
        AlertsPanel.renderAll(html, operations, context.now());
    }

    private JobHistory row(Html html, PageContext context, JobCoordinator job) {
        String name = job.jobName();
        JobConfiguration configuration = job.configuration();
        int items = JobPage.total(job);
        JobHistory history = JobHistory.read(operations, job, items);
        Optional<Instant> next = nextFire(name);
        // From the ledger read the strip was made from: one read per job and poll, and the two agree.
        List<Integer> running = JobPage.runningClaims(history.ledger()).keySet().stream()
                .sorted()
                .toList();
        html.raw("<tr").attr("data-job", name).raw("><td class=\"name\"><a").attr("href", context.jobLink(name));
        html.raw(">").text(name).raw("</a>");
        if (configuration.disabled()) {
            html.raw(" <span class=\"disabled\">disabled</span>");
        }
        html.raw("</td><td class=\"cron\">");
        JobPage.schedule(html, configuration, true);
        html.raw("</td><td class=\"next-fire\">");
        JobPage.nextFire(html, configuration, next.orElse(null), context.now());
        html.raw("</td><td class=\"leader\">")
                .text(job.leaderId().orElse("none"))
                .raw("</td><td class=\"epoch\">");
        html.text(job.assignment().epoch()).raw("</td><td class=\"fires\">");
        strip(html, history.fires());
        html.raw("</td><td class=\"running\"")
                .attr("data-count", running.size())
                .raw(">");
        html.text(running.isEmpty() ? "none" : running.size() + " of " + items + ": " + running);
        html.raw("</td><td class=\"warnings\">");
        List<String> warnings = warnings(history, next, context.now());
        AlertsPanel.warning(operations, name, context.now()).ifPresent(warnings::add);
        job.budget().findings().forEach(finding -> warnings.add("near a limit of ZooKeeper's: " + finding.message()));
        for (String warning : warnings) {
            html.raw("<span class=\"warning\">").text(warning).raw("</span>");
        }
        html.raw("</td>");
        if (context.writable()) {
            html.raw("<td class=\"operations\">");
            Layout.button(html, "trigger", name, "Trigger", "Fire " + name + " now?");
            html.raw("</td>");
        }
        html.raw("</tr>");
        return history;
    }

    /** The last fires as marks, oldest first, so that the newest is at the right as in a time line. */
    static void strip(Html html, List<FireHistory.Fire> fires) {
        for (int i = fires.size() - 1; i >= 0; i--) {
            FireHistory.Fire fire = fires.get(i);
            html.raw("<span class=\"fire\"")
                    .attr("data-outcome", fire.outcome())
                    .attr("title", fire.fireTime() + " " + fire.source() + " " + fire.outcome())
                    .raw("></span>");
        }
        if (fires.isEmpty()) {
            html.raw("<span class=\"none\">no fire yet</span>");
        }
    }

    /** Above the table, in its live part: this instance's clock is beyond the bound from ZooKeeper's. */
    private void clockSkewWarning(Html html) {
        operations
                .clockSkew()
                .filter(ClockSkew::exceeded)
                .ifPresent(skew -> html.raw("<p id=\"clock-skew\" class=\"warning\"")
                        .attr("data-skew-millis", skew.skew().toMillis())
                        .raw(">")
                        .text("This instance's clock is " + skew.describe()
                                + ", more than sharding.zookeeper.max-clock-skew ("
                                + skew.bound().toMillis() + " ms): its fires start "
                                + (skew.skew().isNegative() ? "late" : "early")
                                + " and the times it shows disagree with the other instances'. Check its time"
                                + " synchronisation.")
                        .raw("</p>"));
    }

    static List<String> warnings(JobHistory history, Optional<Instant> next, Instant now) {
        List<String> warnings = new ArrayList<>(FireHistory.warnings(history.fires()));
        next.filter(time -> time.plus(LATE).isBefore(now))
                .ifPresent(time -> warnings.add("the schedule is late: a fire was due at " + time));
        if (history.logProblem() != null) {
            warnings.add(history.logProblem());
        }
        return warnings;
    }

    private Optional<Instant> nextFire(String name) {
        try {
            return operations.nextFireTime(name);
        } catch (NoSuchElementException ex) {
            // Stopped between listing the jobs and this read.
            return Optional.empty();
        }
    }
}
