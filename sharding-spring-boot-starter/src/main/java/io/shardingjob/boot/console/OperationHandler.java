package io.shardingjob.boot.console;

import io.shardingjob.boot.console.ConsoleSecurity.Operator;
import io.shardingjob.boot.operations.OperatorAction.Target;
import io.shardingjob.boot.operations.OperatorActions;
import io.shardingjob.boot.operations.OperatorOutcome;
import io.shardingjob.boot.operations.OperatorOutcome.Status;
import io.shardingjob.boot.operations.OperatorRequest;
import io.shardingjob.core.config.JobConfiguration;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * {@code POST {path}/jobs/{job}/operations}: checks, in order, that operations are allowed at all, that the request comes from a
 * console page of this origin and that its user may operate; then performs it through {@link OperatorActions}, as the
 * {@code sharding} endpoint does. Every request, performed or refused, is logged and audited with the user's name.
 *
 * <p>A page of another site cannot pass the origin check: a cross-site form cannot send htmx's {@code HX-Request}
 * header, and a browser's script that could is stopped by the same-origin policy unless the browser says where it
 * comes from ({@code Origin}, {@code Sec-Fetch-Site}), which must then be this origin. With Spring Security its CSRF
 * filter also checks its token, which every console page sends as a header.
 */
final class OperationHandler {

    /** What the console's pages offer: the jobs, their items and their instances, not their definitions. */
    static final Set<Target> TARGETS = Set.of(Target.JOB, Target.ITEM, Target.INSTANCE);

    /** How the log names the console. */
    static final String VIA = "Console";

    /**
     * The form's fields the console reads; {@code job} is the job's path, which console.js copies from it. A field
     * an action does not take is refused by {@link OperatorActions}, as the endpoint's are.
     */
    private static final Set<String> READ = Set.of("action", "job", "item", "instance", "jobParameter", "fireTime");

    private final OperatorActions actions;

    private final ConsoleWriteAccess access;

    private final ConsoleSecurity security;

    OperationHandler(OperatorActions actions, ConsoleWriteAccess access, ConsoleSecurity security) {
        this.actions = actions;
        this.access = access;
        this.security = security;
    }

    /** The outcome, rendered as the {@code #result} element that replaces the page's. */
    OperatorOutcome handle(ServerRequest request) {
        HttpServletRequest servlet = request.servletRequest();
        Operator operator = security.operator(servlet);
        String refusal = refusal(servlet, operator);
        String job = request.pathVariable("job");
        OperatorRequest asked;
        try {
            asked = new OperatorRequest(
                            job,
                            request.param("action").orElse(""),
                            given(request, "item"),
                            given(request, "instance"),
                            // Left empty, the dialog's field asks for the job's own parameter.
                            given(request, "jobParameter"),
                            null,
                            null,
                            null,
                            null,
                            given(request, "fireTime"))
                    .withOtherFields(otherFields(request));
        } catch (IllegalStateException | IllegalArgumentException unreadable) {
            // The server would not parse the form: larger than it reads (Tomcat's max-http-form-post-size, 2 MB by
            // default), or malformed. Nothing was asked of the job; say why, as for any refused input.
            OperatorOutcome outcome = refusal != null
                    ? OperatorOutcome.refused(refusal)
                    : OperatorOutcome.failed(
                            Status.BAD_INPUT,
                            "the operation's form could not be read (" + unreadable.getMessage() + "); a job"
                                    + " parameter may take at most " + JobConfiguration.MAX_JOB_PARAMETER_BYTES
                                    + " bytes in UTF-8");
            actions.report(operator.name(), VIA, job, "job", "unreadable", outcome);
            return outcome;
        }
        return refusal == null
                ? actions.perform(operator.name(), VIA, TARGETS, asked)
                : actions.refuse(operator.name(), VIA, TARGETS, asked, refusal);
    }

    /**
     * A field of the form, {@code null} when it is missing or empty: the dialog sends each of its fields with every
     * operation, empty where the operation takes none.
     */
    private static @Nullable String given(ServerRequest request, String field) {
        return request.param(field).filter(value -> !value.isBlank()).orElse(null);
    }

    /** The names of the fields the form carried, not empty, that the console does not read: refused by every action. */
    private static Set<String> otherFields(ServerRequest request) {
        return request.params().entrySet().stream()
                .filter(field -> !READ.contains(field.getKey()))
                .filter(field -> field.getValue().stream().anyMatch(value -> value != null && !value.isBlank()))
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
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

    /** {@code <output id="result" data-status="ok">...</output>}, which replaces the page's. */
    static String render(OperatorOutcome outcome) {
        return new Html()
                .raw("<output id=\"result\" role=\"status\"")
                .attr("data-status", outcome.status().word())
                .raw(">")
                .text(outcome.message())
                .raw("</output>")
                .toString();
    }
}
