package io.shardingjob.boot.console;

import io.shardingjob.boot.operations.OperationAudit;

/**
 * Where the console reported each operation, before the endpoint's were reported too.
 *
 * @deprecated since 0.1.0, for {@link OperationAudit}, which the {@code sharding} endpoint reports to as well, with the
 *     same operations, action names and event type. A bean of this type is still used (it is an
 *     {@link OperationAudit}); the auto-configured one is still of this type, so that what injects it keeps working.
 */
@Deprecated(since = "0.1.0")
@FunctionalInterface
public interface ConsoleAudit extends OperationAudit {

    /** The audit event type of the console's operations: {@link OperationAudit#EVENT_TYPE}. */
    String EVENT_TYPE = OperationAudit.EVENT_TYPE;

    /**
     * One operation, as {@link OperationAudit.Operation}.
     *
     * @param user the user who asked
     * @param job the job
     * @param target {@code job}, {@code item/N} or {@code instance/ID}
     * @param action what was asked: {@code trigger}, {@code reshard}, {@code disable-job}, ...
     * @param result {@code ok}, {@code refused} or {@code error}, then what happened
     */
    @Deprecated(since = "0.1.0")
    record Operation(String user, String job, String target, String action, String result) {}

    void operated(Operation operation);

    @Override
    default void operated(OperationAudit.Operation operation) {
        operated(new Operation(
                operation.user(), operation.job(), operation.target(), operation.action(), operation.result()));
    }

    /** Nothing beyond the log. */
    static ConsoleAudit none() {
        return operation -> {};
    }

    /** An {@link OperationAudit} seen as this type: what the auto-configuration declares while this type is kept. */
    static ConsoleAudit of(OperationAudit audit) {
        return new ConsoleAudit() {

            @Override
            public void operated(Operation operation) {
                audit.operated(new OperationAudit.Operation(
                        operation.user(), operation.job(), operation.target(), operation.action(), operation.result()));
            }

            @Override
            public void operated(OperationAudit.Operation operation) {
                audit.operated(operation);
            }
        };
    }
}
