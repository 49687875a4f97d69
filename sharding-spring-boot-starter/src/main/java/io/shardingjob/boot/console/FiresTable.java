package io.shardingjob.boot.console;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A job's recent fires as a table: one row per fire, its items' outcomes, durations, errors, sources and tokens, and,
 * for an operator, a button that re-runs the failed items of a fire the ledger still holds.
 */
final class FiresTable {

    /**
     * @param job the job's name when the console may operate (the re-run buttons), else null
     * @param chainLink the job's page when it is in a chain, so that each fire links to its state down the chain; else
     *     null
     */
    void render(Html html, List<FireHistory.Fire> fires, @Nullable String job, @Nullable String chainLink) {
        html.raw("<table id=\"fires\"><thead><tr><th>fire time</th><th>source</th><th>outcome</th>")
                .raw("<th>ledger</th><th>items</th>")
                .raw(job != null ? "<th></th>" : "")
                .raw("</tr></thead><tbody>");
        for (FireHistory.Fire fire : fires) {
            html.raw("<tr")
                    .attr("data-fire-time", fire.fireTime())
                    .attr("data-source", fire.source())
                    .attr("data-outcome", fire.outcome())
                    .raw("><td><time")
                    .attr("datetime", fire.fireTime())
                    .raw(">")
                    .text(fire.fireTime())
                    .raw("</time>");
            if (chainLink != null) {
                html.raw(" <a class=\"chain-link\"")
                        .attr("href", chainLink + "?fire=" + fire.fireTime().toEpochMilli() + "#chain-title")
                        .raw(">chain</a>");
            }
            html.raw("</td><td class=\"source\">")
                    .text(fire.source())
                    .raw("</td><td class=\"outcome\"><span class=\"fire\"")
                    .attr("data-outcome", fire.outcome())
                    .raw("></span> ")
                    .text(fire.outcome())
                    .raw("</td><td class=\"ledger\">")
                    .text(fire.inLedger() ? "held" : "retired")
                    .raw("</td><td><ul class=\"items\">");
            for (FireHistory.Item item : fire.items()) {
                item(html, item);
            }
            html.raw("</ul></td>");
            if (job != null) {
                html.raw("<td class=\"operations\">");
                if (reRunnable(fire)) {
                    Layout.button(
                            html,
                            "rerun",
                            job,
                            "Re-run failed",
                            "Run the failed items of the fire at " + fire.fireTime() + " again, on their owners?",
                            "data-rerun-fire",
                            String.valueOf(fire.fireTime().toEpochMilli()));
                }
                html.raw("</td>");
            }
            html.raw("</tr>");
        }
        html.raw("</tbody></table>");
        if (fires.isEmpty()) {
            html.raw("<p class=\"none\">No fire recorded yet.</p>");
        }
    }

    /**
     * Whether the fire's failed items can be run again: the ledger still holds it, and an item failed (or timed out).
     * The ledger decides again when asked: an item re-run meanwhile refuses a second re-run.
     */
    static boolean reRunnable(FireHistory.Fire fire) {
        return fire.inLedger()
                && fire.items().stream()
                        .anyMatch(item -> item.state() == FireHistory.ItemState.FAILED
                                || item.state() == FireHistory.ItemState.TIMED_OUT);
    }

    private static void item(Html html, FireHistory.Item item) {
        html.raw("<li")
                .attr("data-item", item.item())
                .attr("data-state", item.state())
                .attr("data-item-source", item.source())
                .raw(">item ")
                .text(item.item())
                .raw(" <span class=\"state\">")
                .text(item.state())
                .raw("</span> on <code>")
                .text(item.instance())
                .raw("</code> <small>")
                .text(item.source());
        if (item.retry() > 0) {
            html.text(", retry " + item.retry());
        }
        if (item.duration() != null) {
            html.text(", " + Html.human(item.duration()));
        }
        if (item.fencingToken() != null) {
            html.text(", token " + item.fencingToken());
        }
        if (item.checkpoint() != null) {
            html.raw(", checkpoint <code class=\"checkpoint\">")
                    .text(item.checkpoint())
                    .raw("</code>");
        }
        html.raw("</small>");
        if (item.error() != null) {
            html.raw(" <span class=\"error\">").text(item.error()).raw("</span>");
        }
        html.raw("</li>");
    }
}
