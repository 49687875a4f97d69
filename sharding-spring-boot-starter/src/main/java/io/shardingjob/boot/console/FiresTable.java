package io.shardingjob.boot.console;

import java.util.List;

/** A job's recent fires as a table: one row per fire, its items' outcomes, durations, errors, sources and tokens. */
final class FiresTable {

    void render(Html html, List<FireHistory.Fire> fires) {
        html.raw("<table id=\"fires\"><thead><tr><th>fire time</th><th>source</th><th>outcome</th>")
                .raw("<th>ledger</th><th>items</th></tr></thead><tbody>");
        for (FireHistory.Fire fire : fires) {
            html.raw("<tr")
                    .attr("data-fire-time", fire.fireTime())
                    .attr("data-source", fire.source())
                    .attr("data-outcome", fire.outcome())
                    .raw("><td><time")
                    .attr("datetime", fire.fireTime())
                    .raw(">")
                    .text(fire.fireTime())
                    .raw("</time></td><td class=\"source\">")
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
            html.raw("</ul></td></tr>");
        }
        html.raw("</tbody></table>");
        if (fires.isEmpty()) {
            html.raw("<p class=\"none\">No fire recorded yet.</p>");
        }
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
        html.raw("</small>");
        if (item.error() != null) {
            html.raw(" <span class=\"error\">").text(item.error()).raw("</span>");
        }
        html.raw("</li>");
    }
}
