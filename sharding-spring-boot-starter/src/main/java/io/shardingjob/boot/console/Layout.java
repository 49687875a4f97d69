package io.shardingjob.boot.console;

import io.shardingjob.boot.console.ConsoleSecurity.CsrfHeader;
import java.util.function.Consumer;

/**
 * The frame of every page: htmx and the console's script and style (served by the console, see
 * {@link ShardingConsole}), the CSRF header every htmx request sends, the instance's state, the read-only note or the
 * confirmation dialog and the place of an operation's result.
 */
final class Layout {

    private Layout() {}

    static String page(PageContext context, String title, Consumer<Html> content) {
        Html html = new Html();
        html.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                // No favicon request: the application may have none, and a 404 is noise in the browser's log.
                .raw("<link rel=\"icon\" href=\"data:,\">")
                .raw("<title>")
                .text(title)
                .raw(" &#183; sharding console</title>")
                .raw("<link rel=\"stylesheet\"")
                .attr("href", context.base() + "/assets/console.css")
                .raw("><script")
                .attr("src", context.base() + "/assets/htmx.min.js")
                .raw("></script><script defer")
                .attr("src", context.base() + "/assets/console.js")
                .raw("></script></head><body");
        CsrfHeader csrf = context.csrf();
        if (csrf != null) {
            // htmx sends the headers of hx-headers, inherited from the body, with every request of the page.
            html.attr("hx-headers", "{" + Html.json(csrf.name()) + ":" + Html.json(csrf.value()) + "}");
        }
        html.raw("><header><a class=\"home\"")
                .attr("href", context.base())
                .raw(">Sharded jobs</a><span class=\"instance\">instance <code>")
                .text(context.instanceId())
                .raw("</code></span>")
                .raw(
                        context.connected()
                                ? "<span class=\"connected\">connected</span>"
                                : "<span class=\"disconnected warning\">not connected to ZooKeeper</span>");
        if (!context.writable()) {
            html.raw(
                            "<span id=\"read-only\" title=\"Operations need management.endpoint.sharding.access=unrestricted\">")
                    .raw("read-only</span>");
        }
        if (context.operatorRefusal() != null) {
            html.raw("<span class=\"operator-note\">")
                    .text(context.operatorRefusal())
                    .raw("</span>");
        }
        html.raw("</header><main>");
        content.accept(html);
        html.raw("</main>");
        if (context.writable()) {
            confirmation(html, context);
        }
        return html.raw("</body></html>").toString();
    }

    /**
     * The dialog every operation button opens (see console.js): it names the operation and, for a trigger, asks for an
     * optional job parameter; its form posts through htmx to the job's {@code /operations} (console.js puts the job in
     * the path), and the answer replaces {@code #result}.
     */
    private static void confirmation(Html html, PageContext context) {
        html.raw("<output id=\"result\" role=\"status\"></output>")
                .raw("<dialog id=\"confirm\"><form id=\"confirm-form\"")
                .attr("data-base", context.base())
                .attr("hx-post", context.base() + "/jobs/-/operations")
                .raw(" hx-target=\"#result\" hx-swap=\"outerHTML\">")
                .raw("<p id=\"confirm-text\"></p>")
                .raw("<input type=\"hidden\" name=\"job\"><input type=\"hidden\" name=\"action\">")
                .raw("<input type=\"hidden\" name=\"item\"><input type=\"hidden\" name=\"instance\">")
                .raw("<input type=\"hidden\" name=\"fireTime\">")
                .raw("<label id=\"job-parameter-field\" hidden>Job parameter (optional) ")
                .raw("<input id=\"job-parameter\" name=\"jobParameter\" autocomplete=\"off\"></label>")
                .raw("<menu><button type=\"button\" id=\"confirm-no\">Cancel</button>")
                .raw("<button type=\"submit\" id=\"confirm-yes\">Confirm</button></menu>")
                .raw("</form></dialog>");
    }

    /**
     * An operation button: console.js opens the dialog for it, asking the question.
     *
     * @param dataName {@code data-item} or {@code data-instance} for an item's or an instance's operation,
     *     {@code data-rerun-fire} for a fire's, else empty
     */
    static void button(
            Html html, String action, String job, String label, String question, String dataName, String dataValue) {
        html.raw("<button type=\"button\"")
                .attr("data-action", action)
                .attr("data-job", job)
                .attr("data-confirm", question);
        if (!dataName.isEmpty()) {
            html.attr(dataName, dataValue);
        }
        html.raw(">").text(label).raw("</button>");
    }

    static void button(Html html, String action, String job, String label, String question) {
        button(html, action, job, label, question, "", "");
    }
}
