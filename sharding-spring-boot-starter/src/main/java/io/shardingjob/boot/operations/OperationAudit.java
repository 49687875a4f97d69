package io.shardingjob.boot.operations;

/**
 * Where each operator's action is reported, asked of the {@code sharding} endpoint or of the console, performed or
 * refused (each is logged as well, by {@link OperatorActions}). With Actuator the auto-configuration publishes each as
 * Boot's {@code AuditApplicationEvent} of type {@value #EVENT_TYPE}, which an {@code AuditEventRepository} bean keeps;
 * an application's own bean of this type replaces it.
 */
@FunctionalInterface
public interface OperationAudit {

    /** The audit event type of operators' actions. */
    String EVENT_TYPE = "SHARDING_OPERATION";

    /**
     * One action.
     *
     * @param user the user who asked ({@code anonymous} when nobody signed in)
     * @param job the job
     * @param target {@code job}, {@code item/N} or {@code instance/ID}
     * @param action what was asked: {@link OperatorAction#actionName()} ({@code trigger}, {@code reshard},
     *     {@code disable-job}, {@code cron}, ...), or the words asked when they name no action
     * @param result {@code ok}, {@code refused} or {@code error}, then what happened
     */
    record Operation(String user, String job, String target, String action, String result) {}

    void operated(Operation operation);

    /** Nothing beyond the log. */
    static OperationAudit none() {
        return operation -> {};
    }
}
