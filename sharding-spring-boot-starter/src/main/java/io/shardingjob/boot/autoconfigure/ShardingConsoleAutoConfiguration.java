package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.console.ConsoleAudit;
import io.shardingjob.boot.console.ConsoleSecurity;
import io.shardingjob.boot.console.ConsoleWriteAccess;
import io.shardingjob.boot.console.ShardingConsole;
import io.shardingjob.boot.console.ShardingConsoleEndpoint;
import io.shardingjob.boot.operations.OperationAudit;
import io.shardingjob.boot.operations.OperationAuditEvents;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The operations console ({@code sharding.console.enabled=true}) in a servlet web application with Spring MVC: its
 * routes, and what decides its operations. Operations are allowed exactly when the {@code sharding} endpoint's access is
 * unrestricted (Boot's {@link EndpointAccessResolver} decides, for both), so the console is read-only without Actuator;
 * with Spring Security they need a signed-in user with {@code sharding.console.role}; with Actuator each one is
 * published as an {@link AuditApplicationEvent}.
 */
@AutoConfiguration(
        after = {ShardedJobsAutoConfiguration.class, ShardingEndpointAutoConfiguration.class},
        afterName = "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty("sharding.console.enabled")
@ConditionalOnBean(ShardingOperations.class)
public final class ShardingConsoleAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ConsoleWriteAccess shardingConsoleWriteAccess() {
        return ConsoleWriteAccess.readOnly();
    }

    @Bean
    @ConditionalOnMissingBean
    ConsoleSecurity shardingConsoleSecurity() {
        return ConsoleSecurity.none();
    }

    /** Without Actuator: nothing beyond the log. */
    @Bean
    @ConditionalOnMissingBean(OperationAudit.class)
    @SuppressWarnings("deprecation")
    ConsoleAudit shardingConsoleAudit() {
        return ConsoleAudit.none();
    }

    @Bean
    @ConditionalOnMissingBean
    ShardingConsole shardingConsole(
            ShardingOperations operations,
            ShardingProperties properties,
            ConsoleWriteAccess access,
            ConsoleSecurity security,
            OperationAudit audit,
            ObjectProvider<Clock> clock) {
        ConsoleProperties console = properties.getConsole();
        if (!ShardingConsole.isPathOfItsOwn(console.getPath())) {
            throw new InvalidShardingPropertyException(
                    "sharding.console.path",
                    "must be a path of its own, such as /sharding-console, not '" + console.getPath() + "'",
                    "Set sharding.console.path to a path that starts with / and is not the root, without patterns.");
        }
        return new ShardingConsole(
                operations,
                console.getPath(),
                console.getRefreshInterval(),
                access,
                security,
                audit,
                clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    RouterFunction<ServerResponse> shardingConsoleRoutes(ShardingConsole console) {
        return console.routes();
    }

    /** With Actuator: the endpoint's access decides the console's operations, which are audited, and the link. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, EndpointAccessResolver.class, AuditApplicationEvent.class})
    static class ActuatorConsoleConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(EndpointAccessResolver.class)
        ConsoleWriteAccess shardingEndpointAccess(EndpointAccessResolver resolver) {
            EndpointId sharding = EndpointId.of("sharding");
            return () -> resolver.accessFor(sharding, Access.READ_ONLY) == Access.UNRESTRICTED;
        }

        /** Set up by {@link ShardingEndpointAutoConfiguration} too, which the endpoint's writes report to. */
        @Bean
        @ConditionalOnMissingBean(OperationAudit.class)
        @SuppressWarnings("deprecation")
        ConsoleAudit shardingConsoleAuditEvents(ApplicationEventPublisher publisher) {
            return ConsoleAudit.of(new OperationAuditEvents(publisher));
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        ShardingConsoleEndpoint shardingConsoleEndpoint(ShardingConsole console, Environment environment) {
            String contextPath = environment.getProperty("server.servlet.context-path", "");
            return new ShardingConsoleEndpoint(contextPath.replaceAll("/+$", "") + console.path());
        }
    }

    /** With Spring Security: operations need the role, and pages send its CSRF token. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({SecurityContextHolder.class, CsrfToken.class})
    static class SecurityConsoleConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ConsoleSecurity shardingConsoleSpringSecurity(ShardingProperties properties) {
            return ConsoleSecurity.springSecurity(properties.getConsole().getRole());
        }
    }
}
