package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.console.GraphLayout.Arrow;
import io.shardingjob.boot.console.GraphLayout.Box;
import io.shardingjob.boot.console.GraphLayout.Picture;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET {path}/graph}: the jobs of the application and which follows which, drawn on the server as inline SVG (no
 * script, nothing fetched: the console works offline). Each job is a box linking to its page; an arrow goes from each
 * job to each job that names it in {@code after}, labelled with {@code on} and "item-wise"; a job on demand is marked,
 * and an upstream that is no job of the application is drawn dashed. Not live: the graph changes only when a job is
 * defined or removed.
 */
final class GraphPage {

    /** Names longer than this are cut in the box; the tooltip has them whole. */
    private static final int NAME_LENGTH = 24;

    private final ShardingOperations operations;

    GraphPage(ShardingOperations operations) {
        this.operations = operations;
    }

    String page(PageContext context) {
        List<JobConfiguration> configurations =
                operations.jobs().stream().map(JobCoordinator::configuration).toList();
        Picture picture =
                GraphLayout.of(configurations.stream().map(GraphLayout.Job::of).toList());
        Map<String, JobConfiguration> byName = configurations.stream()
                .collect(Collectors.toMap(JobConfiguration::name, Function.identity(), (a, b) -> b));
        return Layout.page(context, "Graph of jobs", html -> {
            html.raw("<p class=\"back\"><a").attr("href", context.base()).raw(">&#8592; all jobs</a></p>");
            html.raw("<h1>Graph of jobs</h1><p class=\"log-scope\">")
                    .text("An arrow goes from a job to each job that follows it (after), labelled with which of its"
                            + " fires the follower fires for (on). A dashed job is no job of this application.")
                    .raw("</p>");
            if (picture.arrows().isEmpty()) {
                html.raw("<p class=\"none\">No job follows another.</p>");
            }
            render(html, context, picture, byName);
        });
    }

    static void render(Html html, PageContext context, Picture picture, Map<String, JobConfiguration> configurations) {
        html.raw("<svg id=\"job-graph\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"")
                .attr("width", picture.width())
                .attr("height", picture.height())
                .attr("viewBox", "0 0 " + picture.width() + " " + picture.height())
                .attr("aria-label", "Graph of " + picture.boxes().size() + " jobs")
                .raw("><defs><marker id=\"arrow-head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\"")
                .raw(" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/>")
                .raw("</marker></defs>");
        for (Arrow arrow : picture.arrows()) {
            arrow(html, arrow);
        }
        for (Box box : picture.boxes()) {
            box(html, context, box, configurations.get(box.job()));
        }
        html.raw("</svg>");
    }

    /** A curve from the upstream's right side to the follower's left side, its label above its middle. */
    private static void arrow(Html html, Arrow arrow) {
        int bend = GraphLayout.COLUMN_GAP / 2;
        html.raw("<g class=\"edge\"")
                .attr("data-from", arrow.from())
                .attr("data-to", arrow.to())
                .attr("data-label", arrow.label())
                .raw("><title>")
                .text(arrow.to() + " follows " + arrow.from() + " (on " + arrow.label() + ")")
                .raw("</title><path marker-end=\"url(#arrow-head)\"")
                .attr(
                        "d",
                        "M" + arrow.x1() + "," + arrow.y1() + " C" + (arrow.x1() + bend) + "," + arrow.y1() + " "
                                + (arrow.x2() - bend) + "," + arrow.y2() + " " + arrow.x2() + "," + arrow.y2())
                .raw("/><text text-anchor=\"middle\"")
                .attr("x", (arrow.x1() + arrow.x2()) / 2)
                .attr("y", (arrow.y1() + arrow.y2()) / 2 - 5)
                .raw(">")
                .text(arrow.label())
                .raw("</text></g>");
    }

    private static void box(Html html, PageContext context, Box box, @Nullable JobConfiguration configuration) {
        String classes = "job" + (box.inApplication() ? "" : " external") + (box.onDemand() ? " on-demand" : "");
        html.raw("<g").attr("class", classes).attr("data-job", box.job());
        html.raw(box.onDemand() ? " data-on-demand=\"true\"" : "")
                .raw("><title>")
                .text(tooltip(box, configuration));
        html.raw("</title>");
        if (box.inApplication()) {
            html.raw("<a").attr("href", context.jobLink(box.job())).raw(">");
        }
        html.raw("<rect rx=\"4\"")
                .attr("x", box.x())
                .attr("y", box.y())
                .attr("width", GraphLayout.BOX_WIDTH)
                .attr("height", GraphLayout.BOX_HEIGHT)
                .raw(box.inApplication() ? "" : " stroke-dasharray=\"5 4\"")
                .raw("/><text class=\"name\"")
                .attr("x", box.x() + 10)
                .attr("y", box.y() + 18)
                .raw(">")
                .text(cut(box.job()))
                .raw("</text><text class=\"schedule\"")
                .attr("x", box.x() + 10)
                .attr("y", box.y() + 35)
                .raw(">")
                .text(subtitle(box, configuration))
                .raw("</text>");
        if (box.inApplication()) {
            html.raw("</a>");
        }
        html.raw("</g>");
    }

    private static String subtitle(Box box, @Nullable JobConfiguration configuration) {
        if (configuration == null) {
            return "not in this application";
        }
        if (box.onDemand()) {
            return "on demand";
        }
        return "cron " + configuration.cron();
    }

    private static String tooltip(Box box, @Nullable JobConfiguration configuration) {
        if (configuration == null) {
            return box.job() + ": followed, but no job of this application";
        }
        return box.job() + ": " + (box.onDemand() ? "on demand" : "cron " + configuration.cron())
                + (configuration.followsJobs() ? ", follows " + String.join(", ", configuration.after()) : "");
    }

    private static String cut(String name) {
        return name.length() <= NAME_LENGTH ? name : name.substring(0, NAME_LENGTH - 1) + "\u2026";
    }
}
