package io.shardingjob.boot.operations;

import java.util.Map;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes each action as Boot's {@link AuditApplicationEvent} of type {@value OperationAudit#EVENT_TYPE}: the user
 * as its principal, and {@code job}, {@code target}, {@code action} and {@code result} as its data. Needs Actuator.
 */
public final class OperationAuditEvents implements OperationAudit {

    private final ApplicationEventPublisher publisher;

    public OperationAuditEvents(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void operated(Operation operation) {
        publisher.publishEvent(new AuditApplicationEvent(
                operation.user(),
                EVENT_TYPE,
                Map.of(
                        "job", operation.job(),
                        "target", operation.target(),
                        "action", operation.action(),
                        "result", operation.result())));
    }
}
