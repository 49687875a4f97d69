package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET {path}/jobs/{job}}: one job's settings, its item-by-instance grid, its alerts and its recent fires. All of
 * it is the live part, which refreshes itself from {@code {path}/jobs/{job}/live} every refresh interval: the grid
 * follows an instance that joins or dies as soon as the registry does.
 */
final class JobPage {

    private final ShardingOperations operations;

    private final FiresTable fires = new FiresTable();

    private final ChainPanel chain;

    JobPage(ShardingOperations operations) {
        this.operations = operations;
        this.chain = new ChainPanel(operations);
    }

    /** @param fire the fire the chain shows, null for the newest */
    String page(PageContext context, JobCoordinator job, @Nullable Instant fire) {
        String name = job.jobName();
        return Layout.page(context, name, html -> {
            html.raw("<p class=\"back\"><a").attr("href", context.base()).raw(">&#8592; all jobs</a></p>");
            html.raw("<h1>").text(name).raw("</h1><div id=\"live\"");
            html.attr("hx-get", context.jobLink(name) + "/live" + (fire == null ? "" : "?fire=" + fire.toEpochMilli()))
                    .attr("hx-trigger", context.poll())
                    .raw(" hx-swap=\"innerHTML\">");
            live(html, context, job, fire);
            html.raw("</div>");
        });
    }

    String fragment(PageContext context, JobCoordinator job, @Nullable Instant fire) {
        Html html = new Html();
        live(html, context, job, fire);
        return html.toString();
    }

    /**
     * The job's schedule: its cron and zone, or "on demand" for a job without a cron, which fires only when triggered.
     *
     * @param zoneSmall whether the zone follows the cron in small print (the overview) or as "in zone" (the job page)
     */
    static void schedule(Html html, JobConfiguration configuration, boolean zoneSmall) {
        if (configuration.isOnDemand()) {
            html.raw("<span class=\"on-demand\" title=\"no cron (-): it fires only when triggered\">on demand</span>");
        } else if (zoneSmall) {
            html.raw("<code>").text(configuration.cron()).raw("</code> <small>");
            html.text(configuration.timeZone().getId()).raw("</small>");
        } else {
            html.raw("<code>")
                    .text(configuration.cron())
                    .raw("</code> in ")
                    .text(configuration.timeZone().getId());
        }
    }

    /** When the job fires next; a job on demand fires when triggered. */
    static void nextFire(Html html, JobConfiguration configuration, @Nullable Instant next, Instant now) {
        if (configuration.isOnDemand() && next == null) {
            html.raw("<span class=\"none\">when triggered</span>");
        } else {
            html.time(next, now);
        }
    }

    /** With dynamic sharding the total is the assignment's (one item per instance), not the configured count. */
    static int total(JobCoordinator job) {
        JobConfiguration configuration = job.configuration();
        return configuration.dynamicSharding()
                ? job.assignment().shardingTotalCount()
                : configuration.shardingTotalCount();
    }

    /**
     * What the job costs ZooKeeper ({@code JobCoordinator.budget()}): its ledger's size and this instance's writes to
     * it, then a badge per limit the job is within 80 % of, whose text is the arithmetic.
     */
    static void budget(Html html, JobCoordinator job) {
        CoordinationBudget budget = job.budget();
        html.text(String.format(
                Locale.ROOT,
                "ledger %,d nodes, about %,d bytes; %,d writes from here",
                budget.ledgerNodes(),
                budget.ledgerBytes(),
                budget.figures().ledgerWriteOperations()));
        for (CoordinationBudget.Finding finding : budget.findings()) {
            html.raw(" <span class=\"badge warning\"")
                    .attr("data-limit", finding.cliff().name())
                    .attr("data-severity", finding.severity().name())
                    .attr("title", finding.message())
                    .raw(">")
                    .text((finding.severity() == CoordinationBudget.Severity.REFUSAL ? "past " : "near ")
                            + finding.property() + " limit, " + finding.percent() + " %")
                    .raw("</span><span class=\"warning budget-warning\">")
                    .text(finding.message())
                    .raw("</span>");
        }
    }

    private void live(Html html, PageContext context, JobCoordinator job, @Nullable Instant fire) {
        JobHistory history = JobHistory.read(operations, job, total(job));
        summary(html, context, job);
        grid(html, context, job, history.ledger());
        AlertsPanel.render(html, operations, job.jobName(), context.now());
        html.raw("<h2>Recent fires</h2><p class=\"log-scope\">")
                .text(history.scope())
                .raw("</p>");
        if (history.logProblem() != null) {
            html.raw("<p class=\"warning\">").text(history.logProblem()).raw("</p>");
        }
        fires.render(
                html,
                history.fires(),
                context.writable() ? job.jobName() : null,
                chain.inAChain(job) ? context.jobLink(job.jobName()) : null);
        chain.render(html, context, job, history.ledger(), fire);
        TimelinePanel.render(html, job.jobName(), history.ledger(), context.now());
    }

    private void summary(Html html, PageContext context, JobCoordinator job) {
        String name = job.jobName();
        JobConfiguration configuration = job.configuration();
        Instant next = null;
        try {
            next = operations.nextFireTime(name).orElse(null);
        } catch (NoSuchElementException ex) {
            // It stopped here since the page asked: no next fire here.
        }
        html.raw("<dl id=\"summary\"><dt>cron</dt><dd class=\"cron\">");
        schedule(html, configuration, false);
        html.raw("</dd><dt>next fire</dt><dd class=\"next-fire\">");
        nextFire(html, configuration, next, context.now());
        html.raw("</dd><dt>leader</dt><dd class=\"leader\">")
                .text(job.leaderId().orElse("none"));
        html.raw("</dd><dt>epoch</dt><dd class=\"epoch\">")
                .text(job.assignment().epoch());
        html.raw(job.isReshardPending() ? " <span class=\"pending\">reshard pending</span>" : "");
        html.raw("</dd><dt>items</dt><dd>").text(total(job)).text(configuration.dynamicSharding() ? " (dynamic)" : "");
        html.raw("</dd><dt>strategy</dt><dd>").text(configuration.strategy());
        html.raw("</dd><dt>failover / misfire</dt><dd>").text(configuration.failover() ? "failover" : "no failover");
        html.text(" / " + (configuration.misfire() ? configuration.misfirePolicy() : "skip"));
        html.raw("</dd><dt>job parameter</dt><dd class=\"job-parameter\"><code>")
                .text(configuration.jobParameter());
        html.raw("</code></dd><dt>state</dt><dd class=\"state\">")
                .text(configuration.disabled() ? "disabled" : "enabled");
        html.raw("</dd><dt>ZooKeeper budget</dt><dd class=\"budget\">");
        budget(html, job);
        html.raw("</dd></dl>");
        if (context.writable()) {
            html.raw("<p class=\"operations\">");
            Layout.button(html, "trigger", name, "Trigger now", "Fire " + name + " now?");
            Layout.button(html, "reshard", name, "Reshard", "Ask the leader to reshard " + name + "?");
            if (configuration.disabled()) {
                Layout.button(html, "enable-job", name, "Enable", "Enable " + name + " on every instance?");
            } else {
                Layout.button(html, "disable-job", name, "Disable", "Disable " + name + " on every instance?");
            }
            html.raw("</p>");
        }
    }

    /**
     * One row per item, one column per live instance: who owns the item under the current epoch, who runs it now, and
     * the fencing token of its run.
     */
    private void grid(Html html, PageContext context, JobCoordinator job, List<LedgerFire> ledger) {
        String name = job.jobName();
        JobConfiguration configuration = job.configuration();
        Assignment assignment = job.assignment();
        List<String> instances = job.liveInstances();
        Set<String> disabledInstances = new HashSet<>(job.disabledInstances());
        Set<String> standingBy = new HashSet<>(job.leavingInstances());
        Set<Integer> disabledItems = new HashSet<>(job.disabledItems());
        Map<Integer, String> owners = assignment.ownersByItem();
        // From the same read as the fires below, so that the grid and the fires agree on what runs.
        Map<Integer, LedgerFire.Item> running = runningClaims(ledger);
        String leader = job.leaderId().orElse("");
        html.raw("<h2>Items</h2><table id=\"grid\"><thead><tr><th>item</th><th>parameter</th>");
        for (String instance : instances) {
            html.raw("<th").attr("data-instance", instance);
            html.attr("class", disabledInstances.contains(instance) ? "instance disabled" : "instance");
            html.raw("><code>").text(instance).raw("</code>");
            html.raw(instance.equals(leader) ? " <small>leader</small>" : "");
            html.raw(disabledInstances.contains(instance) ? " <small>disabled</small>" : "");
            html.raw(standingBy.contains(instance) ? " <small class=\"standing-by\">standing by</small>" : "");
            if (context.writable()) {
                boolean disabled = disabledInstances.contains(instance);
                Layout.button(
                        html,
                        disabled ? "enable-instance" : "disable-instance",
                        name,
                        disabled ? "Enable" : "Disable",
                        (disabled ? "Enable" : "Disable") + " instance " + instance + " for " + name + "?",
                        "data-instance",
                        instance);
            }
            html.raw("</th>");
        }
        html.raw("<th>owner</th><th>running</th><th>fencing token</th>");
        html.raw(context.writable() ? "<th></th>" : "").raw("</tr></thead><tbody>");
        int total = total(job);
        for (int item = 0; item < total; item++) {
            String owner = owners.getOrDefault(item, "");
            LedgerFire.Item claim = running.get(item);
            String runner = claim == null ? null : claim.instanceId();
            boolean disabled = disabledItems.contains(item);
            html.raw("<tr").attr("data-item", item).attr("data-owner", owner);
            html.attr("data-running", runner != null).attr("class", disabled ? "disabled" : "");
            html.raw("><td>").text(item).raw("</td><td class=\"parameter\">");
            html.text(configuration.itemParameters().get(item)).raw("</td>");
            for (String instance : instances) {
                boolean owns = instance.equals(owner);
                boolean runs = instance.equals(runner);
                html.raw("<td").attr("class", "cell" + (owns ? " owner" : "") + (runs ? " runs" : ""));
                html.raw(">").raw(runs ? "&#9654;" : owns ? "&#9679;" : "").raw("</td>");
            }
            html.raw("<td class=\"owner\">").text(owner.isEmpty() ? "none" : owner);
            html.raw(!owner.isEmpty() && !instances.contains(owner) ? " <small>gone</small>" : "");
            html.raw(disabled ? " <small>disabled</small>" : "").raw("</td><td class=\"running\">");
            html.text(runner == null ? "" : "on " + runner).raw("</td><td class=\"fencing-token\">");
            html.text(claim == null ? "" : claim.fencingToken()).raw("</td>");
            if (context.writable()) {
                html.raw("<td>");
                Layout.button(
                        html,
                        disabled ? "enable-item" : "disable-item",
                        name,
                        disabled ? "Enable" : "Disable",
                        (disabled ? "Enable" : "Disable") + " item " + item + " of " + name + "?",
                        "data-item",
                        String.valueOf(item));
                html.raw("</td>");
            }
            html.raw("</tr>");
        }
        html.raw("</tbody></table>");
    }

    /**
     * Each item's running claim held by a live session, from the newest fire that has one: which instance runs the item
     * and with which fencing token.
     */
    static Map<Integer, LedgerFire.Item> runningClaims(List<LedgerFire> ledger) {
        Map<Integer, LedgerFire.Item> running = new HashMap<>();
        for (LedgerFire fire : ledger) {
            for (LedgerFire.Item claim : fire.items()) {
                if (claim.state() == ClaimState.RUNNING && claim.live()) {
                    running.putIfAbsent(claim.item(), claim);
                }
            }
        }
        return running;
    }
}
