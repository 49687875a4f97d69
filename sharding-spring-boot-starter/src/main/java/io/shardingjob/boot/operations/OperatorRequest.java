package io.shardingjob.boot.operations;

import io.shardingjob.boot.operations.OperatorAction.Input;
import io.shardingjob.core.operation.InvalidOperationException;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * An operator's request as the endpoint or the console received it: the job, the action as asked, the inputs given, and
 * the names of any other fields it carried. Each action reads its {@link OperatorAction#inputs()}; a request that
 * carries a field its action does not take, one of these inputs or another, is refused
 * ({@link RequestChecks#fieldsNotTaken}).
 *
 * @param action the action's name or verb as asked, read by {@link OperatorAction#parse}
 * @param item an item number as typed, for {@code disable-item} and {@code enable-item}
 * @param instance an instance id, for {@code disable-instance} and {@code enable-instance}
 * @param jobParameter a trigger's job parameter, {@code null} for the job's own
 * @param cron the cron of {@code define} and {@code cron}
 * @param count the item count of {@code define} (1 when not given) and {@code items}
 * @param parameters the item parameters of {@code define} and {@code items} ({@code 0=eu,1=us}; none when not given)
 * @param handler the handler of {@code define}
 * @param fireTime the fire of {@code rerun}, as typed: epoch milliseconds or an ISO-8601 instant
 * @param otherFields the names of the fields the request carried besides the action, the job and the inputs above (a
 *     typo, a field no action takes): none an action takes, so any is refused
 */
public record OperatorRequest(
        String job,
        String action,
        @Nullable String item,
        @Nullable String instance,
        @Nullable String jobParameter,
        @Nullable String cron,
        @Nullable Integer count,
        @Nullable String parameters,
        @Nullable String handler,
        @Nullable String fireTime,
        Set<String> otherFields) {

    public OperatorRequest {
        otherFields = Set.copyOf(otherFields);
    }

    /** A request that carried no field but its action, its job and these inputs. */
    public OperatorRequest(
            String job,
            String action,
            @Nullable String item,
            @Nullable String instance,
            @Nullable String jobParameter,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String fireTime) {
        this(job, action, item, instance, jobParameter, cron, count, parameters, handler, fireTime, Set.of());
    }

    /** An action on a job or its definition, with the inputs the endpoint's body may carry. */
    public static OperatorRequest ofJob(
            String job,
            String action,
            @Nullable String jobParameter,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler) {
        return ofJob(job, action, jobParameter, cron, count, parameters, handler, null);
    }

    /** {@link #ofJob(String, String, String, String, Integer, String, String)}, with a re-run's fire time. */
    public static OperatorRequest ofJob(
            String job,
            String action,
            @Nullable String jobParameter,
            @Nullable String cron,
            @Nullable Integer count,
            @Nullable String parameters,
            @Nullable String handler,
            @Nullable String fireTime) {
        return new OperatorRequest(job, action, null, null, jobParameter, cron, count, parameters, handler, fireTime);
    }

    /** An action on one item of a job. */
    public static OperatorRequest ofItem(String job, String action, @Nullable String item) {
        return new OperatorRequest(job, action, item, null, null, null, null, null, null, null);
    }

    /** An action on one instance's part in a job. */
    public static OperatorRequest ofInstance(String job, String action, @Nullable String instance) {
        return new OperatorRequest(job, action, null, instance, null, null, null, null, null, null);
    }

    /** This request, carrying these other fields too. */
    public OperatorRequest withOtherFields(Set<String> more) {
        Set<String> all = new TreeSet<>(otherFields);
        all.addAll(more);
        return new OperatorRequest(
                job, action, item, instance, jobParameter, cron, count, parameters, handler, fireTime, all);
    }

    /** The names of every field the request carried besides its action and job: the inputs given, and the others. */
    public Set<String> fields() {
        Set<String> fields = new TreeSet<>(otherFields);
        for (Input input : Input.values()) {
            if (value(input) != null) {
                fields.add(input.field());
            }
        }
        return fields;
    }

    private @Nullable Object value(Input input) {
        return switch (input) {
            case JOB_PARAMETER -> jobParameter;
            case ITEM -> item;
            case INSTANCE -> instance;
            case HANDLER -> handler;
            case CRON -> cron;
            case COUNT -> count;
            case PARAMETERS -> parameters;
            case FIRE_TIME -> fireTime;
        };
    }

    /**
     * The item as a number: the text typed (a URL's path, a form field) read as a whole number. Whether the job has
     * that item is the job's operation to check ({@code JobCoordinator.disableItem}).
     *
     * @throws InvalidOperationException naming the job and {@code item} when it is not a whole number
     */
    int itemNumber() {
        try {
            return Integer.parseInt(item == null ? "" : item.trim());
        } catch (NumberFormatException ex) {
            throw new InvalidOperationException(
                    job,
                    "item",
                    "'" + OperatorAction.abbreviated(item == null ? "" : item) + "' is not an item number");
        }
    }

    /**
     * The fire of a re-run as typed: epoch milliseconds ({@code 1767225600000}, as the ledger names fires) or an
     * ISO-8601 instant ({@code 2026-01-01T00:00:00Z}).
     *
     * @throws InvalidOperationException naming the job and {@code fireTime} when it is neither
     */
    Instant fireTimeInstant() {
        String given = fireTime == null ? "" : fireTime.trim();
        try {
            return given.chars().allMatch(Character::isDigit) && !given.isEmpty()
                    ? Instant.ofEpochMilli(Long.parseLong(given))
                    : Instant.parse(given);
        } catch (RuntimeException ex) {
            throw new InvalidOperationException(
                    job,
                    "fireTime",
                    "'" + OperatorAction.abbreviated(given)
                            + "' is not a fire time: give epoch milliseconds or an ISO-8601 instant");
        }
    }

    /**
     * {@code job}, {@code item/N} or {@code instance/ID}: what is asked to change, by the inputs given, for an action
     * that could not be read.
     */
    String target() {
        if (item != null) {
            return "item/" + item;
        }
        return instance != null ? "instance/" + instance : "job";
    }
}
