package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.operation.OperatorInputs;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * The console's operations, each one call of {@link ShardingOperations} (the facade the {@code sharding} endpoint uses
 * too), with its answer: what happened, or why nothing did. Inputs are checked by the core's {@link OperatorInputs},
 * as the endpoint's are: a refused one answers {@code 400} with the reason, and nothing is written.
 */
final class ConsoleActions {

    private final ShardingOperations operations;

    ConsoleActions(ShardingOperations operations) {
        this.operations = operations;
    }

    /**
     * An operation as a page asks for it.
     *
     * @param item the item of an item's operation
     * @param instance the instance of an instance's operation
     * @param jobParameter the parameter of a trigger, {@code null} or blank for the job's own
     */
    record Request(
            String job,
            String action,
            @Nullable String item,
            @Nullable String instance,
            @Nullable String jobParameter) {

        /** {@code job}, {@code item/N} or {@code instance/ID}: what the operation changes. */
        String target() {
            if (action.endsWith("-item")) {
                return "item/" + item;
            }
            if (action.endsWith("-instance")) {
                return "instance/" + instance;
            }
            return "job";
        }
    }

    /** How an operation ended: the {@code data-status} of {@code #result}. */
    enum Status {
        OK,
        REFUSED,
        ERROR;

        String attribute() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The answer to an operation, with the HTTP status it is sent with. */
    record Result(Status status, int httpStatus, String message) {

        static Result ok(String message) {
            return new Result(Status.OK, 200, message);
        }

        static Result refused(String why) {
            return new Result(Status.REFUSED, 403, why);
        }

        static Result error(int httpStatus, String message) {
            return new Result(Status.ERROR, httpStatus, message);
        }
    }

    Result perform(Request request) {
        String job = request.job();
        if (operations.job(job).isEmpty()) {
            return Result.error(404, "no job named '" + job + "' runs here");
        }
        try {
            return switch (request.action()) {
                case "trigger" -> trigger(job, request.jobParameter());
                case "reshard" -> done(() -> operations.reshard(job), "reshard requested from the leader");
                case "disable-job" -> done(() -> operations.disable(job), "job disabled on every instance");
                case "enable-job" -> done(() -> operations.enable(job), "job enabled on every instance");
                case "disable-item" -> {
                    int item = OperatorInputs.parseItem(job, request.item());
                    yield done(() -> operations.disableItem(job, item), "item " + item + " disabled");
                }
                case "enable-item" -> {
                    int item = OperatorInputs.parseItem(job, request.item());
                    yield done(() -> operations.enableItem(job, item), "item " + item + " enabled");
                }
                case "disable-instance" -> {
                    String instance = OperatorInputs.instanceId(job, request.instance());
                    yield done(
                            () -> operations.disableInstance(job, instance),
                            "instance " + instance + " disabled: its items move to the others");
                }
                case "enable-instance" -> {
                    String instance = OperatorInputs.instanceId(job, request.instance());
                    yield done(() -> operations.enableInstance(job, instance), "instance " + instance + " enabled");
                }
                default -> Result.error(400, "unknown operation '" + request.action() + "'");
            };
        } catch (NoSuchElementException ex) {
            return Result.error(404, String.valueOf(ex.getMessage()));
        } catch (IllegalArgumentException ex) {
            return Result.error(400, String.valueOf(ex.getMessage()));
        } catch (IllegalStateException ex) {
            return Result.error(409, String.valueOf(ex.getMessage()));
        } catch (RuntimeException ex) {
            return Result.error(500, ex.toString());
        }
    }

    /** One fire of the whole job, across the cluster, with the parameter given or, when blank, the job's own. */
    private Result trigger(String job, @Nullable String jobParameter) {
        String parameter = jobParameter == null || jobParameter.isBlank() ? null : jobParameter;
        return operations
                .trigger(job, parameter)
                .map(fireTime -> Result.ok("fire of " + fireTime + " started on every instance"
                        + (parameter == null ? "" : ", job parameter '" + parameter + "'")))
                .orElseGet(() -> Result.error(409, "nothing started: this instance is stopping"));
    }

    private static Result done(Runnable operation, String message) {
        operation.run();
        return Result.ok(message);
    }
}
