package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.StoredJobs;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * On a job's page, for a job that follows others or is followed: one fire down its chain (see {@link FireChain}), the
 * newest fire of the job (of its chain, for a follower that has none yet) unless the page asks for another
 * ({@code ?fire=} epoch milliseconds, the links of the fires table). Reads the recent fires of every job of the chain that runs on this instance, once per refresh.
 */
final class ChainPanel {

    private final ShardingOperations operations;

    ChainPanel(ShardingOperations operations) {
        this.operations = operations;
    }

    /** Whether the job has a chain, so that its fires link to it. */
    boolean inAChain(JobCoordinator job) {
        return FireChain.inAChain(followers(configurations()), job.configuration());
    }

    /**
     * @param ledger the job's own recent fires, as the page read them
     * @param asked the fire the page asks for, null for the newest
     */
    void render(Html html, PageContext context, JobCoordinator job, List<LedgerFire> ledger, @Nullable Instant asked) {
        Map<String, JobConfiguration> configurations = configurations();
        Map<String, List<String>> followers = followers(configurations);
        if (!FireChain.inAChain(followers, job.configuration())) {
            return;
        }
        Map<String, List<LedgerFire>> fires = new HashMap<>();
        for (String member : FireChain.members(followers, configurations, job.jobName())) {
            if (member.equals(job.jobName())) {
                fires.put(member, ledger);
            } else {
                operations
                        .job(member)
                        .ifPresent(other -> fires.put(member, other.ledger().recentFires(JobHistory.FIRES)));
            }
        }
        Instant fireTime = asked != null ? asked : newest(ledger, fires);
        html.raw("<h2 id=\"chain-title\">Down the chain</h2>");
        if (fireTime == null) {
            html.raw("<p class=\"none\">No fire of this chain in the ledger yet.</p>");
            return;
        }
        List<FireChain.Row> rows = FireChain.of(followers, configurations, fires, job.jobName(), fireTime);
        html.raw("<p class=\"log-scope\">The fire at ")
                .raw("<time")
                .attr("datetime", fireTime)
                .raw(">")
                .text(fireTime)
                .raw("</time>")
                .text(" in every job it follows and every job following it: a follower fires with its upstream's"
                        + " fire time. Pick another fire in the fires table.")
                .raw("</p>");
        html.raw("<table id=\"chain\"")
                .attr("data-fire-time", fireTime)
                .raw("><thead><tr><th>job</th><th>follows</th><th>items at this fire</th><th>why not</th></tr>")
                .raw("</thead><tbody>");
        for (FireChain.Row row : rows) {
            row(html, context, row, job.jobName());
        }
        html.raw("</tbody></table>");
    }

    private static void row(Html html, PageContext context, FireChain.Row row, String page) {
        html.raw("<tr")
                .attr("data-job", row.job())
                .attr("data-fired", row.fired())
                .attr("class", "layer-" + Math.min(row.layer(), 6) + (row.job().equals(page) ? " this-job" : ""))
                .raw("><td class=\"name\">");
        if (row.known()) {
            html.raw("<a")
                    .attr("href", context.jobLink(row.job()))
                    .raw(">")
                    .text(row.job())
                    .raw("</a>");
        } else {
            html.raw("<span class=\"external\">").text(row.job()).raw("</span>");
        }
        html.raw("</td><td class=\"follows\">");
        if (row.on() != null) {
            html.text(String.join(", ", row.after()))
                    .raw(" <small>")
                    .text("on " + row.on().value() + (row.itemWise() ? ", item-wise" : ""))
                    .raw("</small>");
        }
        html.raw("</td><td><ul class=\"chain-items\">");
        for (FireChain.Item item : row.items()) {
            html.raw("<li")
                    .attr("data-item", item.item())
                    .attr("data-state", item.state())
                    .attr("title", item.instance() == null ? "not claimed yet" : "on " + item.instance())
                    .raw(">")
                    .text(item.item() + " " + label(item.state()))
                    .raw("</li>");
        }
        html.raw("</ul></td><td class=\"why\">").text(row.why()).raw("</td></tr>");
    }

    /** The job's newest fire; for a follower that has none yet, the newest fire of its chain, which it waits for. */
    private static @Nullable Instant newest(List<LedgerFire> ledger, Map<String, List<LedgerFire>> fires) {
        if (!ledger.isEmpty()) {
            return ledger.get(0).fireTime();
        }
        return fires.values().stream()
                .flatMap(List::stream)
                .map(LedgerFire::fireTime)
                .max(Instant::compareTo)
                .orElse(null);
    }

    private static String label(FireChain.ItemState state) {
        return switch (state) {
            case SUCCEEDED -> "succeeded";
            case FAILED -> "failed";
            case RUNNING -> "running";
            case NOT_YET -> "not yet";
            case SKIPPED -> "skipped";
        };
    }

    private Map<String, JobConfiguration> configurations() {
        Map<String, JobConfiguration> configurations = new TreeMap<>();
        operations.jobs().forEach(job -> configurations.put(job.jobName(), job.configuration()));
        return configurations;
    }

    /** This application's jobs that follow each job: the chain shows the jobs that run here. */
    private static Map<String, List<String>> followers(Map<String, JobConfiguration> configurations) {
        return StoredJobs.followers(configurations.values());
    }
}
