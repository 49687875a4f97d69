package io.shardingjob.boot.console;

import io.shardingjob.boot.console.TimelineLayout.Bar;
import io.shardingjob.boot.console.TimelineLayout.Lane;
import io.shardingjob.boot.console.TimelineLayout.Picture;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * On a job's page: its recent fires' item runs as a picture, one lane per instance, a bar per run coloured by its
 * outcome, with the job, item, fire time and duration in its tooltip (see {@link TimelineLayout}). Inline SVG, drawn on
 * the server.
 */
final class TimelinePanel {

    static final int WIDTH = 900;

    private TimelinePanel() {}

    static void render(Html html, String job, List<LedgerFire> ledger, Instant now) {
        Picture picture = TimelineLayout.of(List.of(new TimelineLayout.Fires(job, ledger)), now, WIDTH);
        html.raw("<h2>Item runs by instance</h2>");
        if (picture.isEmpty()) {
            html.raw("<p class=\"none\">No item run in the ledger's recent fires.</p>");
            return;
        }
        html.raw("<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"")
                .attr("width", picture.width())
                .attr("height", picture.height())
                .attr("viewBox", "0 0 " + picture.width() + " " + picture.height())
                .attr("aria-label", "Item runs of " + job + " by instance")
                .attr("data-from", picture.from())
                .attr("data-to", picture.to())
                .raw(">");
        for (Lane lane : picture.lanes()) {
            html.raw("<g class=\"lane\"")
                    .attr("data-instance", lane.instance())
                    .raw("><line class=\"lane-line\" x1=\"0\"")
                    .attr("y1", lane.y() + TimelineLayout.LANE_HEIGHT)
                    .attr("x2", picture.width())
                    .attr("y2", lane.y() + TimelineLayout.LANE_HEIGHT)
                    .raw("/><text x=\"4\"")
                    .attr("y", lane.y() + TimelineLayout.LANE_HEIGHT / 2 + 5)
                    .raw(">")
                    .text(lane.instance())
                    .raw("</text></g>");
        }
        for (Bar bar : picture.bars()) {
            bar(html, bar);
        }
        int axis = picture.height() - 5;
        html.raw("<text class=\"axis\"")
                .attr("x", TimelineLayout.LABEL_WIDTH)
                .attr("y", axis)
                .raw(">")
                .text(picture.from())
                .raw("</text><text class=\"axis\" text-anchor=\"end\"")
                .attr("x", picture.width())
                .attr("y", axis)
                .raw(">")
                .text(picture.to())
                .raw("</text></svg>");
    }

    private static void bar(Html html, Bar bar) {
        html.raw("<rect class=\"run\"")
                .attr("data-job", bar.job())
                .attr("data-item", bar.item())
                .attr("data-instance", bar.instance())
                .attr("data-fire-time", bar.fireTime())
                .attr("data-outcome", bar.outcome())
                .attr("x", number(bar.x()))
                .attr("y", number(bar.y()))
                .attr("width", number(bar.width()))
                .attr("height", TimelineLayout.BAR_HEIGHT)
                .raw("><title>")
                .text(tooltip(bar))
                .raw("</title></rect>");
    }

    /** "settle item 1, fire 2026-01-01T00:00:00Z, on app-1: failed after 2 s". */
    static String tooltip(Bar bar) {
        String took = Html.human(bar.duration());
        String how = switch (bar.outcome()) {
            case SUCCEEDED -> "succeeded in " + took;
            case FAILED -> "failed after " + took;
            case RUNNING -> "running for " + took;
            case UNFINISHED -> "unfinished after " + took;
        };
        return bar.job() + " item " + bar.item() + ", fire " + bar.fireTime() + ", on " + bar.instance() + ": " + how;
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
