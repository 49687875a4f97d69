package io.shardingjob.boot.actuate;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.operations.OperationAudit;
import io.shardingjob.boot.operations.OperatorAction;
import io.shardingjob.boot.operations.OperatorAction.Target;
import io.shardingjob.boot.operations.OperatorActions;
import io.shardingjob.boot.operations.OperatorOutcome;
import io.shardingjob.boot.operations.OperatorOutcome.Status;
import io.shardingjob.boot.operations.OperatorRequest;
import java.security.Principal;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * {@code /actuator/sharding}: the jobs of this instance as the registry sees them, and operations on them.
 *
 * <ul>
 *   <li>{@code GET /actuator/sharding}: this instance and a summary of each job;
 *   <li>{@code GET /actuator/sharding/{job}}: instances, items and recent executions of one job;
 *   <li>{@code GET /actuator/sharding/{job}/executions?page=0&size=20}: the job's execution log, newest first (from the
 *       database when the JDBC log is on);
 *   <li>{@code POST /actuator/sharding/{job}} with {@code {"action": "trigger" | "reshard" | "disable" | "enable"}};
 *       a trigger fires every item once across the instances, with an optional {@code "jobParameter"}, and its answer
 *       names the fire's {@code fireTime};
 *   <li>for jobs defined at run time ({@link ShardedJobRegistry}), {@code POST /actuator/sharding/{job}} with
 *       {@code {"action": "define", "handler": "export", "cron": "0 0 2 * * *", "count": 3, "parameters": "0=eu,1=us"}},
 *       {@code {"action": "cron", "cron": "..."}}, {@code {"action": "items", "count": 3, "parameters": "..."}} (also
 *       for a job declared in code: its stored configuration changes) or {@code {"action": "remove"}};
 *   <li>{@code POST /actuator/sharding/{job}/items/{item}} and {@code POST /actuator/sharding/{job}/instances/{id}}
 *       with {@code {"action": "disable" | "enable"}}.
 * </ul>
 *
 * Write operations need {@code management.endpoint.sharding.access=unrestricted}: the endpoint is read-only by default.
 * An unknown job answers 404; a bad action or part, a field the action does not take (an {@code item} sent to the
 * job's path, a misspelt {@code jobParameter}: Boot would ignore it, {@link UnboundFieldsAdvisor} shows it), an
 * instance the job does not know, or an input the core's operations refuse (an item outside the job's items, a
 * malformed instance id, a job parameter too large for the fire ledger, a cron that cannot be read), 400 with the reason
 * and the refused {@code input}, before anything is written; a trigger of a job disabled or stopping here 409, and one
 * that ZooKeeper could not record 503.
 *
 * <p>The actions are {@link OperatorAction}'s, as the console's are: each write is performed, logged and reported to
 * the {@link OperationAudit} by {@link OperatorActions}, with the request's principal as its user ({@code anonymous}
 * without one) and the action's name as the console's would be ({@code disable} on an item is {@code disable-item}).
 * The job's path also takes those names ({@code disable-job}), an item's or instance's path theirs.
 */
@Endpoint(id = "sharding", defaultAccess = Access.READ_ONLY)
@ImportRuntimeHints(ShardingEndpoint.ShardingEndpointRuntimeHints.class)
public class ShardingEndpoint {

    private static final int DEFAULT_PAGE_SIZE = 20;

    private static final int MAX_PAGE_SIZE = 500;

    /** What {@code POST /actuator/sharding/{job}} changes: the job, or its definition. */
    private static final Set<Target> JOB_TARGETS = Set.of(Target.JOB, Target.DEFINITION);

    /** How the log names this endpoint. */
    private static final String VIA = "Endpoint";

    private final ShardingOperations operations;

    private final OperatorActions actions;

    public ShardingEndpoint(ShardingOperations operations) {
        this(operations, null);
    }

    /** @param registry the jobs defined at run time, or null to offer no operations on them */
    public ShardingEndpoint(ShardingOperations operations, @Nullable ShardedJobRegistry registry) {
        this(operations, registry, OperationAudit.none());
    }

    /**
     * @param registry the jobs defined at run time, or null to offer no operations on them
     * @param audit where each write is reported, as the console's are
     */
    public ShardingEndpoint(
            ShardingOperations operations, @Nullable ShardedJobRegistry registry, OperationAudit audit) {
        this.operations = operations;
        this.actions = new OperatorActions(operations, registry, audit);
    }

    @ReadOperation
    public ShardingDescriptor sharding() {
        return ShardingDescriptor.of(operations);
    }

    /** The job's details, or {@code null} (404 over HTTP) when there is no such job. */
    @ReadOperation
    public @Nullable JobDescriptor job(@Selector String job) {
        return operations
                .job(job)
                .map(coordinator ->
                        JobDescriptor.of(coordinator, operations.recentExecutions(job), operations.followers()))
                .orElse(null);
    }

    /** A page of the job's execution log; {@code view} must be {@code executions}. */
    @ReadOperation
    public WebEndpointResponse<Object> executions(
            @Selector String job, @Selector String view, @Nullable Integer page, @Nullable Integer size) {
        if (!"executions".equals(view) || operations.job(job).isEmpty()) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        try {
            return new WebEndpointResponse<>(ExecutionsDescriptor.of(operations.executions(
                    job, page == null ? 0 : page, size == null ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE))));
        } catch (IllegalArgumentException ex) {
            return new WebEndpointResponse<>(
                    new ActionResult(job, view, "read", String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        } catch (IllegalStateException ex) {
            return new WebEndpointResponse<>(
                    new ActionResult(job, view, "read", String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    /**
     * An operation on one job; {@code cron}, {@code count}, {@code parameters}, {@code handler}, {@code jobParameter}
     * and {@code fireTime} (a re-run's fire, epoch milliseconds or ISO-8601) are read by the actions that take them. The
     * action is read, checked, performed and audited by {@link OperatorActions}, as the console's are; its user is the
     * request's principal. A field its action does not take, one of these or any other ({@code unbound}), refuses it.
     */
    @WriteOperation
    public WebEndpointResponse<ActionResult> changeJob(
            @Selector String job,
            String action,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String jobParameter,
            @Nullable String fireTime,
            SecurityContext securityContext,
            @Nullable UnboundFields unbound) {
        OperatorRequest request = OperatorRequest.ofJob(
                        job, action, jobParameter, cron, count, parameters, handler, fireTime)
                .withOtherFields(names(unbound));
        OperatorOutcome outcome = actions.perform(user(securityContext), VIA, JOB_TARGETS, request);
        return answer(job, "job", action, OperatorAction.parse(action, JOB_TARGETS), outcome);
    }

    /**
     * {@link #changeJob(String, String, String, Integer, String, String, String, String, SecurityContext,
     * UnboundFields)} with no other field.
     */
    public WebEndpointResponse<ActionResult> changeJob(
            String job,
            String action,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String jobParameter,
            @Nullable String fireTime,
            SecurityContext securityContext) {
        return changeJob(job, action, cron, count, parameters, handler, jobParameter, fireTime, securityContext, null);
    }

    /**
     * {@link #changeJob(String, String, String, Integer, String, String, String, String, SecurityContext)} by nobody
     * known, without a fire time.
     */
    public WebEndpointResponse<ActionResult> changeJob(
            String job,
            String action,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String jobParameter) {
        return changeJob(job, action, cron, count, parameters, handler, jobParameter, null, SecurityContext.NONE, null);
    }

    /**
     * {@link #changeJob(String, String, String, Integer, String, String, String, String, SecurityContext)} by nobody
     * known.
     */
    public WebEndpointResponse<ActionResult> changeJob(
            String job,
            String action,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String jobParameter,
            @Nullable String fireTime) {
        return changeJob(
                job, action, cron, count, parameters, handler, jobParameter, fireTime, SecurityContext.NONE, null);
    }

    /**
     * An operation on one item ({@code part} {@code items}) or instance ({@code instances}) of a job: the path names
     * it, so a field besides the action ({@code unbound}) refuses it. An instance must be one the job knows.
     */
    @WriteOperation
    public WebEndpointResponse<ActionResult> changePart(
            @Selector String job,
            @Selector String part,
            @Selector String id,
            String action,
            SecurityContext securityContext,
            @Nullable UnboundFields unbound) {
        String target = part + "/" + id;
        String user = user(securityContext);
        Target kind = switch (part) {
            case "items" -> Target.ITEM;
            case "instances" -> Target.INSTANCE;
            default -> null;
        };
        if (kind == null) {
            OperatorOutcome outcome = operations.job(job).isEmpty()
                    ? OperatorOutcome.failed(Status.NO_SUCH_JOB, "no such job")
                    : OperatorOutcome.failed(Status.BAD_INPUT, "unknown part '" + part + "'; use items or instances");
            actions.report(user, VIA, job, target, action, outcome);
            return answer(job, target, action, Optional.empty(), outcome);
        }
        OperatorRequest request = (kind == Target.ITEM
                        ? OperatorRequest.ofItem(job, action, id)
                        : OperatorRequest.ofInstance(job, action, id))
                .withOtherFields(names(unbound));
        Set<Target> targets = Set.of(kind);
        OperatorOutcome outcome = actions.perform(user, VIA, targets, request);
        return answer(job, target, action, OperatorAction.parse(action, targets), outcome);
    }

    /** {@link #changePart(String, String, String, String, SecurityContext, UnboundFields)} with no other field. */
    public WebEndpointResponse<ActionResult> changePart(
            String job, String part, String id, String action, SecurityContext securityContext) {
        return changePart(job, part, id, action, securityContext, null);
    }

    /** {@link #changePart(String, String, String, String, SecurityContext, UnboundFields)} by nobody known. */
    public WebEndpointResponse<ActionResult> changePart(String job, String part, String id, String action) {
        return changePart(job, part, id, action, SecurityContext.NONE, null);
    }

    private static Set<String> names(@Nullable UnboundFields unbound) {
        return unbound == null ? Set.of() : unbound.names();
    }

    private static String user(SecurityContext securityContext) {
        Principal principal = securityContext.getPrincipal();
        return principal == null ? "anonymous" : principal.getName();
    }

    /**
     * The outcome as this endpoint has always answered it: a change of a job's, an item's or an instance's state
     * answers {@code done}, an unknown running job {@code no such job}; otherwise the outcome's message.
     */
    private static WebEndpointResponse<ActionResult> answer(
            String job, String target, String asked, Optional<OperatorAction> action, OperatorOutcome outcome) {
        boolean stateChange = action.map(
                        known -> known != OperatorAction.TRIGGER && known.target() != Target.DEFINITION)
                .orElse(false);
        boolean definition =
                action.map(known -> known.target() == Target.DEFINITION).orElse(false);
        String result = switch (outcome.status()) {
            case PERFORMED -> stateChange ? "done" : outcome.message();
            case NO_SUCH_JOB -> definition ? outcome.message() : "no such job";
            default -> outcome.message();
        };
        return new WebEndpointResponse<>(
                new ActionResult(job, target, asked, result, outcome.fireTime(), outcome.input()),
                outcome.httpStatus());
    }

    /**
     * Boot's processing of the operations registers the JSON binding of each operation's declared body; the page of
     * executions is declared {@code Object} (it may be an {@link ActionResult} too), so its documents are named here.
     */
    static class ShardingEndpointRuntimeHints implements RuntimeHintsRegistrar {

        private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

        @Override
        public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
            bindings.registerReflectionHints(hints.reflection(), ExecutionsDescriptor.class);
        }
    }
}
