package io.shardingjob.boot.operations;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.operations.OperatorAction.Performed;
import io.shardingjob.boot.operations.OperatorAction.Target;
import io.shardingjob.boot.operations.OperatorOutcome.Status;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Performs operators' actions for the endpoint and the console, and reports each one, performed or not, to the log and
 * the {@link OperationAudit}: the one place where an action is read ({@link OperatorAction#parse}), its job looked up,
 * its inputs checked and its exceptions turned into an {@link OperatorOutcome}.
 *
 * <p>In order: an action on a running job (or a request that names no action) needs the job here, else
 * {@link Status#NO_SUCH_JOB}; an unknown action is {@link Status#BAD_INPUT} with {@link OperatorAction#unknown}, and so
 * is a request carrying a field its action does not take ({@link RequestChecks#fieldsNotTaken}, named in the outcome's
 * {@code input}); then the action checks its inputs (an instance must be one the job knows: {@link RequestChecks#knownInstance}) and performs: a refused or
 * missing input is {@link Status#BAD_INPUT}, no such job (of a definition) {@link Status#NO_SUCH_JOB}, a state that
 * does not allow it (a disabled or stopping job) {@link Status#CONFLICT}, ZooKeeper not recording it
 * {@link Status#UNAVAILABLE}, anything else {@link Status#FAILED}.
 */
public final class OperatorActions {

    private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

    private final ShardingOperations operations;

    private final @Nullable ShardedJobRegistry registry;

    private final OperationAudit audit;

    /** @param registry the jobs defined at run time, or null to refuse the actions on definitions */
    public OperatorActions(ShardingOperations operations, @Nullable ShardedJobRegistry registry, OperationAudit audit) {
        this.operations = operations;
        this.registry = registry;
        this.audit = audit;
    }

    /**
     * Reads, performs and reports an action.
     *
     * @param user who asked, for the audit
     * @param via {@code endpoint} or {@code console}, for the log
     * @param targets what the action may change where it was asked (the endpoint's path, the console's form)
     */
    public OperatorOutcome perform(String user, String via, Set<Target> targets, OperatorRequest request) {
        Optional<OperatorAction> action = OperatorAction.parse(request.action(), targets);
        return reported(user, via, action, request, outcome(action, targets, request));
    }

    /**
     * Refuses and reports an action the caller may not ask for (operations not allowed, another site, a user without
     * the role); nothing is performed.
     */
    public OperatorOutcome refuse(String user, String via, Set<Target> targets, OperatorRequest request, String why) {
        return reported(
                user, via, OperatorAction.parse(request.action(), targets), request, OperatorOutcome.refused(why));
    }

    private OperatorOutcome reported(
            String user,
            String via,
            Optional<OperatorAction> action,
            OperatorRequest request,
            OperatorOutcome outcome) {
        report(
                user,
                via,
                request.job(),
                action.map(known -> known.targetOf(request)).orElseGet(request::target),
                action.map(OperatorAction::actionName).orElse(request.action()),
                outcome);
        return outcome;
    }

    /**
     * Reports an action that was not performed for a reason of the caller's (a request that could not be read, a part
     * of a path that names nothing): logged and audited like any other.
     */
    public void report(String user, String via, String job, String target, String action, OperatorOutcome outcome) {
        // A refused or failed action is worth an operator's look; a performed one is the normal record.
        log.atLevel(outcome.isPerformed() ? Level.INFO : Level.WARN)
                .log("{}: {} asked {} of {} ({}): {}", via, user, action, job, target, outcome.result());
        try {
            audit.operated(new OperationAudit.Operation(user, job, target, action, outcome.result()));
        } catch (RuntimeException ex) {
            log.warn("{}: the audit of {} of {} failed", via, action, job, ex);
        }
    }

    private OperatorOutcome outcome(Optional<OperatorAction> action, Set<Target> targets, OperatorRequest request) {
        String job = request.job();
        if (action.map(known -> known.target() != Target.DEFINITION).orElse(true)
                && operations.job(job).isEmpty()) {
            return OperatorOutcome.failed(Status.NO_SUCH_JOB, "no job named '" + job + "' runs here");
        }
        if (action.isEmpty()) {
            return OperatorOutcome.failed(Status.BAD_INPUT, OperatorAction.unknown(request.action(), targets));
        }
        OperatorAction known = action.get();
        List<String> notTaken = RequestChecks.fieldsNotTaken(known, request);
        if (!notTaken.isEmpty()) {
            return OperatorOutcome.badInput(notTaken.get(0), RequestChecks.notTaken(known, job, notTaken));
        }
        try {
            Performed performed = known.perform(request, operations, registry);
            return OperatorOutcome.performed(performed.what(), performed.fireTime());
        } catch (NoSuchElementException ex) {
            return OperatorOutcome.failed(Status.NO_SUCH_JOB, String.valueOf(ex.getMessage()));
        } catch (IllegalArgumentException ex) {
            // An InvalidOperationException, a JobConfigurationException or a missing input: nothing was written.
            return OperatorOutcome.badInput(ex);
        } catch (IllegalStateException ex) {
            return OperatorOutcome.failed(Status.CONFLICT, String.valueOf(ex.getMessage()));
        } catch (RegistryUnavailableException ex) {
            return OperatorOutcome.failed(Status.UNAVAILABLE, String.valueOf(ex.getMessage()));
        } catch (RuntimeException ex) {
            return OperatorOutcome.failed(Status.FAILED, ex.toString());
        }
    }
}
