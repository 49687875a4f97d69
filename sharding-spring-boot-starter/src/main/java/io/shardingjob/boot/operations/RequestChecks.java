package io.shardingjob.boot.operations;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.operation.InvalidOperationException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a request may carry for its action, checked before anything is performed, the same for the endpoint and the
 * console: the fields its action takes and no other, and an instance the job knows. Without them an operator's slip
 * passes silently: an {@code item} sent to the job's path disables the whole job, a misspelt {@code jobParameter}
 * fires with the configured one, an instance id typed wrong is disabled as a new one. Each refusal names the job, the
 * field or the instance, and the action; nothing is written.
 */
final class RequestChecks {

    /** How many fields or instances a refusal names at most: a body of a thousand fields gets a refusal of one line. */
    private static final int MAX_NAMED = 5;

    private RequestChecks() {}

    /**
     * The fields of the request its action does not take, sorted: an input of another action, or a field no action
     * has (a typo). Performed, the action would ignore them; {@link OperatorActions} refuses the request instead.
     */
    static List<String> fieldsNotTaken(OperatorAction action, OperatorRequest request) {
        Set<String> taken = action.fields();
        return request.fields().stream()
                .filter(field -> !taken.contains(field))
                .sorted()
                .toList();
    }

    /**
     * Why a request carrying these fields is refused: the action, what it takes, and which action of the same verb
     * takes a field, if one does (the item of {@code disable-item}).
     */
    static String notTaken(OperatorAction action, String job, List<String> fields) {
        String quoted = named(fields.stream()
                .map(field -> "'" + OperatorAction.abbreviated(field) + "'")
                .toList());
        String takes = action.fields().isEmpty()
                ? "it takes no field but the action"
                : "it takes " + action.fields().stream().sorted().collect(Collectors.joining(", "));
        String elsewhere = fields.stream()
                .limit(MAX_NAMED)
                .flatMap(field -> Arrays.stream(OperatorAction.values())
                        .filter(other -> other != action && other.verb().equals(action.verb()))
                        .filter(other -> other.fields().contains(field))
                        .map(other -> "; " + other.actionName() + " takes " + field))
                .distinct()
                .collect(Collectors.joining());
        return "Job '" + OperatorAction.abbreviated(job) + "': " + action.actionName() + " does not take " + quoted
                + " (" + takes + elsewhere + "): nothing was changed";
    }

    /**
     * The request's instance, refused unless the job knows it: registered now (in this instance's cache of the job's
     * instances), or, to enable it, disabled (a flag left for an instance that has gone stays clearable). An id
     * registered a moment ago may not be in the cache yet (asked again, it is), and one that leaves between this check
     * and the write is changed all the same, as asked. A missing id is left to the core's check, which names it.
     *
     * @throws InvalidOperationException naming the job and {@code instanceId} when the job does not know the instance
     */
    static String knownInstance(OperatorRequest request, ShardingOperations operations, boolean orDisabled) {
        String instance = Objects.requireNonNullElse(request.instance(), "");
        JobCoordinator job = operations.job(request.job()).orElseThrow();
        List<String> registered = job.liveInstances();
        if (instance.isBlank()
                || registered.contains(instance)
                || (orDisabled && job.disabledInstances().contains(instance))) {
            return instance;
        }
        throw new InvalidOperationException(
                request.job(),
                "instanceId",
                "'" + OperatorAction.abbreviated(instance) + "' is not a registered instance of the job"
                        + (orDisabled ? " nor a disabled one" : "") + " (registered: "
                        + (registered.isEmpty() ? "none" : named(registered)) + "): nothing was changed");
    }

    /** {@code a, b, c, d, e and 2 more}. */
    private static String named(List<String> names) {
        return names.stream().limit(MAX_NAMED).collect(Collectors.joining(", "))
                + (names.size() > MAX_NAMED ? " and " + (names.size() - MAX_NAMED) + " more" : "");
    }
}
