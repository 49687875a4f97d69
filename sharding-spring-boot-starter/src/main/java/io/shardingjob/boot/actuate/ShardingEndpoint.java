package io.shardingjob.boot.actuate;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingDescriptors.ActionResult;
import io.shardingjob.boot.actuate.ShardingDescriptors.ExecutionsDescriptor;
import io.shardingjob.boot.actuate.ShardingDescriptors.JobDescriptor;
import io.shardingjob.boot.actuate.ShardingDescriptors.ShardingDescriptor;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.operation.OperatorInputs;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Instant;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.actuate.endpoint.Access;
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
 * An unknown job answers 404; a bad action or part, or an input the core's {@link OperatorInputs} refuses (an item
 * outside the job's items, a malformed instance id, a job parameter too large for the fire ledger, a cron that cannot
 * be read), 400 with the reason and the refused {@code input}, before anything is written; a trigger of a job disabled
 * or stopping here 409, and one that ZooKeeper could not record 503.
 */
@Endpoint(id = "sharding", defaultAccess = Access.READ_ONLY)
@ImportRuntimeHints(ShardingEndpoint.ShardingEndpointRuntimeHints.class)
public class ShardingEndpoint {

    private static final int DEFAULT_PAGE_SIZE = 20;

    private static final int MAX_PAGE_SIZE = 500;

    /** The actions on a job's definition, which need no coordinator of the job on this instance. */
    private static final Set<String> DEFINITION_ACTIONS = Set.of("define", "cron", "items", "remove");

    private final ShardingOperations operations;

    private final @Nullable ShardedJobRegistry registry;

    public ShardingEndpoint(ShardingOperations operations) {
        this(operations, null);
    }

    /** @param registry the jobs defined at run time, or null to offer no operations on them */
    public ShardingEndpoint(ShardingOperations operations, @Nullable ShardedJobRegistry registry) {
        this.operations = operations;
        this.registry = registry;
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
                .map(coordinator -> JobDescriptor.of(coordinator, operations.recentExecutions(job)))
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
     * An operation on one job; {@code cron}, {@code count}, {@code parameters}, {@code handler} and {@code jobParameter}
     * are read by the actions that need them.
     */
    @WriteOperation
    public WebEndpointResponse<ActionResult> changeJob(
            @Selector String job,
            String action,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String jobParameter) {
        String lowerCase = action.toLowerCase(Locale.ROOT);
        if (DEFINITION_ACTIONS.contains(lowerCase)) {
            return changeDefinition(job, action, lowerCase, cron, count, parameters, handler);
        }
        Optional<JobCoordinator> coordinator = operations.job(job);
        if (coordinator.isEmpty()) {
            return unknownJob(job, "job", action);
        }
        return switch (lowerCase) {
            case "trigger" -> trigger(job, action, jobParameter);
            case "reshard" -> run(job, "job", action, () -> operations.reshard(job));
            case "disable" -> run(job, "job", action, () -> operations.disable(job));
            case "enable" -> run(job, "job", action, () -> operations.enable(job));
            default ->
                badRequest(
                        job,
                        "job",
                        action,
                        "unknown action; use trigger, reshard, disable, enable, define, cron, items or remove");
        };
    }

    /** A manual fire of every item, on every instance; the answer names its fire time. */
    private WebEndpointResponse<ActionResult> trigger(String job, String action, @Nullable String jobParameter) {
        try {
            Optional<Instant> fireTime = operations.trigger(job, jobParameter);
            if (fireTime.isEmpty()) {
                return conflict(job, action, "the job is stopping on this instance: nothing was fired");
            }
            String result = "fire started on every instance (asked on " + operations.instanceId() + "), fire time "
                    + fireTime.get();
            return new WebEndpointResponse<>(
                    new ActionResult(job, "job", action, result, fireTime.get()), WebEndpointResponse.STATUS_OK);
        } catch (IllegalArgumentException ex) {
            // The job parameter is larger than the fire ledger takes: refused before anything was written.
            return badRequest(job, "job", action, ex);
        } catch (IllegalStateException ex) {
            return conflict(job, action, ex.getMessage());
        } catch (RegistryUnavailableException ex) {
            return new WebEndpointResponse<>(
                    new ActionResult(job, "job", action, String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
        }
    }

    private static WebEndpointResponse<ActionResult> conflict(String job, String action, @Nullable String problem) {
        return new WebEndpointResponse<>(new ActionResult(job, "job", action, String.valueOf(problem)), 409);
    }

    private WebEndpointResponse<ActionResult> changeDefinition(
            String job,
            String action,
            String lowerCase,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler) {
        ShardedJobRegistry jobs = registry;
        if (jobs == null) {
            return badRequest(job, "job", action, "jobs cannot be defined at run time in this application");
        }
        try {
            return switch (lowerCase) {
                case "define" -> {
                    if (handler == null || cron == null) {
                        yield badRequest(job, "job", action, "give a handler and a cron");
                    }
                    jobs.define(
                            JobConfiguration.builder(job)
                                    .cron(cron)
                                    .shardingTotalCount(count == null ? 1 : count)
                                    .shardingItemParameters(parameters == null ? "" : parameters)
                                    .build(),
                            handler);
                    yield done(job, "job", action, "defined with handler '" + handler + "'");
                }
                case "cron" -> {
                    if (cron == null) {
                        yield badRequest(job, "job", action, "give a cron");
                    }
                    yield done(
                            job,
                            "job",
                            action,
                            "cron " + jobs.updateCron(job, cron).cron());
                }
                case "items" -> {
                    if (count == null) {
                        yield badRequest(job, "job", action, "give a count, and parameters if the items have any");
                    }
                    JobConfiguration stored = jobs.updateItems(job, count, parameters == null ? "" : parameters);
                    yield done(job, "job", action, stored.shardingTotalCount() + " items");
                }
                default -> {
                    jobs.remove(job);
                    yield done(
                            job, "job", action, "removal started: every instance stops the job, then its state goes");
                }
            };
        } catch (NoSuchElementException ex) {
            return new WebEndpointResponse<>(
                    new ActionResult(job, "job", action, String.valueOf(ex.getMessage())),
                    WebEndpointResponse.STATUS_NOT_FOUND);
        } catch (IllegalArgumentException ex) {
            // A JobConfigurationException or an InvalidOperationException: the message names the job and the setting.
            return badRequest(job, "job", action, ex);
        }
    }

    @WriteOperation
    public WebEndpointResponse<ActionResult> changePart(
            @Selector String job, @Selector String part, @Selector String id, String action) {
        String target = part + "/" + id;
        if (operations.job(job).isEmpty()) {
            return unknownJob(job, target, action);
        }
        boolean enable;
        switch (action.toLowerCase(Locale.ROOT)) {
            case "disable" -> enable = false;
            case "enable" -> enable = true;
            default -> {
                return badRequest(job, target, action, "unknown action; use disable or enable");
            }
        }
        return switch (part) {
            case "items" -> {
                int item;
                try {
                    item = OperatorInputs.parseItem(job, id);
                } catch (InvalidOperationException ex) {
                    yield badRequest(job, target, action, ex);
                }
                yield run(job, target, action, () -> {
                    if (enable) {
                        operations.enableItem(job, item);
                    } else {
                        operations.disableItem(job, item);
                    }
                });
            }
            case "instances" ->
                run(job, target, action, () -> {
                    if (enable) {
                        operations.enableInstance(job, id);
                    } else {
                        operations.disableInstance(job, id);
                    }
                });
            default -> badRequest(job, target, action, "unknown part '" + part + "'; use items or instances");
        };
    }

    /**
     * Runs an operation; the core refuses a bad item or instance id with an {@link InvalidOperationException} before
     * it writes anything, which is a 400.
     */
    private static WebEndpointResponse<ActionResult> run(String job, String target, String action, Runnable operation) {
        try {
            operation.run();
            return done(job, target, action, "done");
        } catch (IllegalArgumentException ex) {
            return badRequest(job, target, action, ex);
        }
    }

    private static WebEndpointResponse<ActionResult> done(String job, String target, String action, String result) {
        return new WebEndpointResponse<>(new ActionResult(job, target, action, result), WebEndpointResponse.STATUS_OK);
    }

    private static WebEndpointResponse<ActionResult> badRequest(
            String job, String target, String action, @Nullable String problem) {
        return new WebEndpointResponse<>(
                new ActionResult(job, target, action, String.valueOf(problem)), WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /** A 400 naming the reason and, when the core's checks refused it, the input. */
    private static WebEndpointResponse<ActionResult> badRequest(
            String job, String target, String action, IllegalArgumentException refused) {
        String input = refused instanceof InvalidOperationException invalid ? invalid.input() : null;
        return new WebEndpointResponse<>(
                new ActionResult(job, target, action, String.valueOf(refused.getMessage()), null, input),
                WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    private static WebEndpointResponse<ActionResult> unknownJob(String job, String target, String action) {
        return new WebEndpointResponse<>(
                new ActionResult(job, target, action, "no such job"), WebEndpointResponse.STATUS_NOT_FOUND);
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
