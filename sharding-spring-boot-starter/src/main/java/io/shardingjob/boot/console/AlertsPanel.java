package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;

/**
 * The {@code #alerts} panel of a job's page: the alerts raised about the job (failed or missed fires, failed items,
 * overruns). This version of the facade keeps no alerts; the panel is in place so that the page's layout does not change
 * when it does.
 */
final class AlertsPanel {

    private AlertsPanel() {}

    static void render(Html html, ShardingOperations operations, String job) {
        html.raw("<section id=\"alerts\"><h2>Alerts</h2>")
                .raw("<p class=\"none\">No alert is kept by this version.</p>")
                .raw("</section>");
    }
}
