package io.shardingjob.boot.console;

/**
 * Where the console reports each operation asked for, performed or refused (the console logs each one as well). With
 * Actuator the auto-configuration publishes each as Boot's {@code AuditApplicationEvent}, which an {@code AuditEventRepository} bean keeps.
 */
@FunctionalInterface
public interface ConsoleAudit {

    /** The audit event type of the console's operations. */
    String EVENT_TYPE = "SHARDING_OPERATION";

    /**
     * One operation.
     *
     * @param user the user who asked
     * @param job the job
     * @param target {@code job}, {@code item/N} or {@code instance/ID}
     * @param action what was asked: {@code trigger}, {@code reshard}, {@code disable-job}, ...
     * @param result {@code ok}, {@code refused} or {@code error}, then what happened
     */
    record Operation(String user, String job, String target, String action, String result) {}

    void operated(Operation operation);

    /** Nothing beyond the log. */
    static ConsoleAudit none() {
        return operation -> {};
    }
}
