package io.shardingjob.boot.console;

import io.shardingjob.boot.console.ConsoleActions.Request;
import io.shardingjob.boot.console.ConsoleActions.Result;
import io.shardingjob.boot.console.ConsoleActions.Status;
import io.shardingjob.boot.console.ConsoleSecurity.Operator;
import io.shardingjob.core.operation.OperatorInputs;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * {@code POST {path}/jobs/{job}/operations}: checks, in order, that operations are allowed at all, that the request comes from a
 * console page of this origin and that its user may operate; then performs it. Every request, performed or refused, is
 * logged and audited with the user's name.
 *
 * <p>A page of another site cannot pass the origin check: a cross-site form cannot send htmx's {@code HX-Request}
 * header, and a browser's script that could is stopped by the same-origin policy unless the browser says where it
 * comes from ({@code Origin}, {@code Sec-Fetch-Site}), which must then be this origin. With Spring Security its CSRF
 * filter also checks its token, which every console page sends as a header.
 */
final class OperationHandler {

    private static final Logger log = LoggerFactory.getLogger(OperationHandler.class);

    private final ConsoleActions actions;

    private final ConsoleWriteAccess access;

    private final ConsoleSecurity security;

    private final ConsoleAudit audit;

    OperationHandler(ConsoleActions actions, ConsoleWriteAccess access, ConsoleSecurity security, ConsoleAudit audit) {
        this.actions = actions;
        this.access = access;
        this.security = security;
        this.audit = audit;
    }

    /** The result, rendered as the {@code #result} element that replaces the page's. */
    Result handle(ServerRequest request) {
        HttpServletRequest servlet = request.servletRequest();
        Operator operator = security.operator(servlet);
        String refusal = refusal(servlet, operator);
        Request asked;
        Result result;
        try {
            asked = new Request(
                    request.pathVariable("job"),
                    request.param("action").orElse(""),
                    request.param("item").orElse(null),
                    request.param("instance").orElse(null),
                    request.param("jobParameter").orElse(null));
            result = refusal == null ? actions.perform(asked) : Result.refused(refusal);
        } catch (IllegalStateException | IllegalArgumentException unreadable) {
            // The server would not parse the form: larger than it reads (Tomcat's max-http-form-post-size, 2 MB by
            // default), or malformed. Nothing was asked of the job; say why, as for any refused input.
            asked = new Request(request.pathVariable("job"), "unreadable", null, null, null);
            result = refusal != null
                    ? Result.refused(refusal)
                    : Result.error(
                            400,
                            "the operation's form could not be read (" + unreadable.getMessage() + "); a job"
                                    + " parameter may take at most " + OperatorInputs.MAX_JOB_PARAMETER_BYTES
                                    + " bytes in UTF-8");
        }
        record(operator, asked, result);
        return result;
    }

    private @Nullable String refusal(HttpServletRequest request, Operator operator) {
        if (!access.writesAllowed()) {
            return "the console is read-only: operations need management.endpoint.sharding.access=unrestricted";
        }
        String crossSite = crossSiteRefusal(request);
        return crossSite != null ? crossSite : operator.refusal();
    }

    /** Why the request may come from another site, {@code null} when it comes from a page of this origin. */
    static @Nullable String crossSiteRefusal(HttpServletRequest request) {
        if (!"true".equals(request.getHeader("HX-Request"))) {
            return "operations are accepted from the console's pages only (no HX-Request header)";
        }
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin")) {
            return "a request from another site is refused (Sec-Fetch-Site: " + site + ")";
        }
        if (CorsUtils.isCorsRequest(request)) {
            return "a request from another origin is refused (Origin: " + request.getHeader("Origin") + ")";
        }
        return null;
    }

    private void record(Operator operator, Request asked, Result result) {
        String outcome = result.status().attribute() + ": " + result.message();
        // A refused or failed operation is worth an operator's look; a performed one is the normal record.
        log.atLevel(result.status() == Status.OK ? Level.INFO : Level.WARN)
                .log(
                        "Console: {} asked {} of {} ({}): {}",
                        operator.name(),
                        asked.action(),
                        asked.job(),
                        asked.target(),
                        outcome);
        try {
            audit.operated(
                    new ConsoleAudit.Operation(operator.name(), asked.job(), asked.target(), asked.action(), outcome));
        } catch (RuntimeException ex) {
            log.warn("Console: the audit of {} of {} failed", asked.action(), asked.job(), ex);
        }
    }

    /** {@code <output id="result" data-status="ok">...</output>}, which replaces the page's. */
    static String render(Result result) {
        return new Html()
                .raw("<output id=\"result\" role=\"status\"")
                .attr("data-status", result.status().attribute())
                .raw(">")
                .text(result.message())
                .raw("</output>")
                .toString();
    }
}
