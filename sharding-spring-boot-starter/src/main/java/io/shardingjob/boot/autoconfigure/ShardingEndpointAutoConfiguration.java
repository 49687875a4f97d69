package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.boot.actuate.UnboundFieldsAdvisor;
import io.shardingjob.boot.console.ConsoleAudit;
import io.shardingjob.boot.operations.OperationAudit;
import io.shardingjob.boot.operations.OperationAuditEvents;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sharding} Actuator endpoint, when Actuator is on the class path and the endpoint is available, and the
 * audit of operators' actions (the endpoint's and the console's) as Boot's {@link AuditApplicationEvent}.
 */
@AutoConfiguration(after = ShardedJobsAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, AuditApplicationEvent.class})
@ConditionalOnBean(ShardingOperations.class)
public final class ShardingEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    ShardingEndpoint shardingEndpoint(
            ShardingOperations operations,
            ObjectProvider<ShardedJobRegistry> registry,
            ObjectProvider<OperationAudit> audit) {
        return new ShardingEndpoint(operations, registry.getIfAvailable(), audit.getIfAvailable(OperationAudit::none));
    }

    /**
     * Shows the endpoint's writes the fields that no parameter binds, which it refuses rather than ignore as Boot would.
     */
    @Bean
    @ConditionalOnMissingBean
    UnboundFieldsAdvisor shardingUnboundFieldsAdvisor() {
        return new UnboundFieldsAdvisor();
    }

    /**
     * Each operator's action, of this endpoint or of the console, as Boot's {@code AuditApplicationEvent}. Declared as
     * the deprecated {@link ConsoleAudit} (an {@link OperationAudit}) while that type is kept, so that what injects it
     * keeps working.
     */
    @Bean
    @ConditionalOnMissingBean(OperationAudit.class)
    @SuppressWarnings("deprecation")
    ConsoleAudit shardingOperationAudit(ApplicationEventPublisher publisher) {
        return ConsoleAudit.of(new OperationAuditEvents(publisher));
    }
}
