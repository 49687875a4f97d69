package io.shardingjob.boot.operations;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What an operator can do to the jobs, each action named once: its verb and the {@link Target} it changes, which make
 * its {@link #actionName() name}, the inputs it needs, and the call that performs it. The endpoint and the console
 * read actions through {@link #parse} and perform them through {@link OperatorActions}, so both take the same names,
 * check inputs the same way and report to the same {@link OperationAudit}.
 *
 * <table>
 *   <caption>The actions</caption>
 *   <tr><th>name</th><th>target</th><th>inputs</th><th>performed by</th></tr>
 *   <tr><td>{@code trigger}</td><td>job</td><td>{@code jobParameter} (optional)</td>
 *       <td>{@link ShardingOperations#trigger(String, String)}</td></tr>
 *   <tr><td>{@code rerun}</td><td>job</td><td>{@code fireTime}</td>
 *       <td>{@link ShardingOperations#rerunFailed}</td></tr>
 *   <tr><td>{@code reshard}</td><td>job</td><td></td><td>{@link ShardingOperations#reshard}</td></tr>
 *   <tr><td>{@code disable-job}, {@code enable-job}</td><td>job</td><td></td>
 *       <td>{@link ShardingOperations#disable}, {@link ShardingOperations#enable}</td></tr>
 *   <tr><td>{@code disable-item}, {@code enable-item}</td><td>item</td><td>{@code item}</td>
 *       <td>{@link ShardingOperations#disableItem}, {@link ShardingOperations#enableItem}</td></tr>
 *   <tr><td>{@code disable-instance}, {@code enable-instance}</td><td>instance</td><td>{@code instance}</td>
 *       <td>{@link ShardingOperations#disableInstance}, {@link ShardingOperations#enableInstance}</td></tr>
 *   <tr><td>{@code define}</td><td>definition</td><td>{@code handler}, {@code cron}, {@code count} (1),
 *       {@code parameters}</td><td>{@link ShardedJobRegistry#define}</td></tr>
 *   <tr><td>{@code cron}</td><td>definition</td><td>{@code cron}</td><td>{@link ShardedJobRegistry#updateCron}</td></tr>
 *   <tr><td>{@code items}</td><td>definition</td><td>{@code count}, {@code parameters}</td>
 *       <td>{@link ShardedJobRegistry#updateItems}</td></tr>
 *   <tr><td>{@code remove}</td><td>definition</td><td></td><td>{@link ShardedJobRegistry#remove}</td></tr>
 * </table>
 *
 * A name is the verb alone when no other action has that verb, else the verb and the target ({@code disable-item}):
 * these are the console's actions and the audit's. The endpoint names the target by its path, so it takes the verb
 * alone there ({@code POST /actuator/sharding/{job}/items/2} with {@code disable}).
 */
public enum OperatorAction {
    TRIGGER("trigger", Target.JOB, Input.JOB_PARAMETER),
    RERUN("rerun", Target.JOB, Input.FIRE_TIME),
    RESHARD("reshard", Target.JOB),
    DISABLE_JOB("disable", Target.JOB),
    ENABLE_JOB("enable", Target.JOB),
    DISABLE_ITEM("disable", Target.ITEM, Input.ITEM),
    ENABLE_ITEM("enable", Target.ITEM, Input.ITEM),
    DISABLE_INSTANCE("disable", Target.INSTANCE, Input.INSTANCE),
    ENABLE_INSTANCE("enable", Target.INSTANCE, Input.INSTANCE),
    DEFINE("define", Target.DEFINITION, Input.HANDLER, Input.CRON, Input.COUNT, Input.PARAMETERS),
    CRON("cron", Target.DEFINITION, Input.CRON),
    ITEMS("items", Target.DEFINITION, Input.COUNT, Input.PARAMETERS),
    REMOVE("remove", Target.DEFINITION);

    /** What an action changes. */
    public enum Target {
        /** A running job, on every instance. */
        JOB,
        /** One item of a running job. */
        ITEM,
        /** One instance's part in a running job. */
        INSTANCE,
        /** A job's stored definition: needs no coordinator of the job here, only {@link ShardedJobRegistry}. */
        DEFINITION;

        /** {@code job}, {@code item}, {@code instance} or {@code definition}. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * An input an action reads from its request: {@link OperatorRequest}'s component, under the {@link #field() name}
     * the endpoint's body and the console's form give it.
     */
    public enum Input {
        JOB_PARAMETER("jobParameter"),
        ITEM("item"),
        INSTANCE("instance"),
        HANDLER("handler"),
        CRON("cron"),
        COUNT("count"),
        PARAMETERS("parameters"),
        FIRE_TIME("fireTime");

        private final String field;

        Input(String field) {
            this.field = field;
        }

        /** {@code jobParameter}, {@code item}, ...: the field that carries it. */
        public String field() {
            return field;
        }
    }

    private final String verb;

    private final Target target;

    private final Set<Input> inputs;

    OperatorAction(String verb, Target target, Input... inputs) {
        this.verb = verb;
        this.target = target;
        this.inputs = Set.of(inputs);
    }

    /** {@code trigger}, {@code disable}, {@code cron}, ...: what the endpoint's {@code action} says. */
    public String verb() {
        return verb;
    }

    public Target target() {
        return target;
    }

    /** The inputs it reads; a request that carries any other is refused ({@link RequestChecks#fieldsNotTaken}). */
    public Set<Input> inputs() {
        return inputs;
    }

    /** The names of the fields it takes besides the action: its inputs', as {@link Input#field()} names them. */
    public Set<String> fields() {
        return inputs.stream().map(Input::field).collect(Collectors.toUnmodifiableSet());
    }

    /** {@code trigger}, {@code disable-job}, {@code disable-item}, ...: the console's action and the audit's. */
    public String actionName() {
        long sameVerb = Arrays.stream(values())
                .filter(action -> action.verb.equals(verb))
                .count();
        return sameVerb == 1 ? verb : verb + "-" + target.word();
    }

    /**
     * The action of one of these targets called {@code asked}, by its name or its verb, in any case: how the endpoint
     * (targets from its path) and the console (names) read them. A verb shared by two of the targets names neither.
     */
    public static Optional<OperatorAction> parse(String asked, Set<Target> targets) {
        String word = asked.trim().toLowerCase(Locale.ROOT);
        List<OperatorAction> matching = Arrays.stream(values())
                .filter(action -> targets.contains(action.target))
                .filter(action -> action.actionName().equals(word) || action.verb.equals(word))
                .toList();
        return matching.size() == 1 ? Optional.of(matching.get(0)) : Optional.empty();
    }

    /**
     * Why an action is refused as unknown, the same for the endpoint and the console: the words that are actions of
     * these targets, verbs where they are unambiguous there, names elsewhere.
     */
    public static String unknown(String asked, Set<Target> targets) {
        List<String> words = Arrays.stream(values())
                .filter(action -> targets.contains(action.target))
                .map(action -> parse(action.verb, targets).isPresent() ? action.verb : action.actionName())
                .distinct()
                .toList();
        String last = words.get(words.size() - 1);
        String list = words.size() == 1 ? last : String.join(", ", words.subList(0, words.size() - 1)) + " or " + last;
        return "unknown action '" + abbreviated(asked) + "'; use " + list;
    }

    /**
     * {@code job}, {@code item/N} or {@code instance/ID}: what the action changes, as the audit names it (a definition
     * is a job's).
     */
    public String targetOf(OperatorRequest request) {
        return switch (target) {
            case JOB, DEFINITION -> "job";
            case ITEM -> "item/" + Objects.requireNonNullElse(request.item(), "");
            case INSTANCE -> "instance/" + Objects.requireNonNullElse(request.instance(), "");
        };
    }

    /**
     * Reads the request's inputs, then performs the action. An input refused, as text here or by the core's
     * operations, throws an {@link io.shardingjob.core.operation.InvalidOperationException} before anything is
     * written; a missing one a {@link MissingInputException}; the operations' own exceptions pass through.
     *
     * @param registry the jobs defined at run time, null when the application has none (a definition's action is then
     *     refused)
     * @return what happened, in a sentence, and the fire's time for a trigger
     */
    Performed perform(OperatorRequest request, ShardingOperations operations, @Nullable ShardedJobRegistry registry) {
        String job = request.job();
        return switch (this) {
            case TRIGGER -> trigger(request, operations);
            case RERUN -> rerun(request, operations);
            case RESHARD -> performed(() -> operations.reshard(job), "reshard requested from the leader");
            case DISABLE_JOB -> performed(() -> operations.disable(job), "job disabled on every instance");
            case ENABLE_JOB -> performed(() -> operations.enable(job), "job enabled on every instance");
            case DISABLE_ITEM -> {
                int item = request.itemNumber();
                yield performed(() -> operations.disableItem(job, item), "item " + item + " disabled");
            }
            case ENABLE_ITEM -> {
                int item = request.itemNumber();
                yield performed(() -> operations.enableItem(job, item), "item " + item + " enabled");
            }
            case DISABLE_INSTANCE -> {
                String instance = RequestChecks.knownInstance(request, operations, false);
                yield performed(
                        () -> operations.disableInstance(job, instance),
                        "instance " + instance + " disabled: its items move to the others");
            }
            case ENABLE_INSTANCE -> {
                String instance = RequestChecks.knownInstance(request, operations, true);
                yield performed(() -> operations.enableInstance(job, instance), "instance " + instance + " enabled");
            }
            case DEFINE, CRON, ITEMS, REMOVE -> DefinitionChanges.perform(this, request, registry);
        };
    }

    private static Performed trigger(OperatorRequest request, ShardingOperations operations) {
        String parameter = request.jobParameter();
        return operations
                .trigger(request.job(), parameter)
                .map(fireTime -> new Performed(
                        "fire started on every instance (asked on " + operations.instanceId() + "), fire time "
                                + fireTime
                                + (parameter == null ? "" : ", job parameter '" + abbreviated(parameter) + "'"),
                        fireTime))
                .orElseThrow(
                        () -> new IllegalStateException("the job is stopping on this instance: nothing was fired"));
    }

    private static Performed rerun(OperatorRequest request, ShardingOperations operations) {
        if (request.fireTime() == null) {
            throw new MissingInputException("give the fireTime of the fire to re-run (epoch milliseconds or ISO-8601)");
        }
        Instant fireTime = request.fireTimeInstant();
        List<Integer> items = operations.rerunFailed(request.job(), fireTime);
        return new Performed(
                "items " + items + " of the fire at " + fireTime + " reopened: each runs again on its owner (RETRY)",
                fireTime);
    }

    private static Performed performed(Runnable operation, String what) {
        operation.run();
        return new Performed(what, null);
    }

    static String abbreviated(String text) {
        return text.length() <= 64 ? text : text.substring(0, 48) + "... (" + text.length() + " characters)";
    }

    /** What a performed action did, and the fire's time of a trigger. */
    record Performed(String what, @Nullable Instant fireTime) {}

    /** A request without an input its action needs, or an action this application cannot perform: a 400. */
    static final class MissingInputException extends IllegalArgumentException {

        MissingInputException(String message) {
            super(message);
        }
    }
}
