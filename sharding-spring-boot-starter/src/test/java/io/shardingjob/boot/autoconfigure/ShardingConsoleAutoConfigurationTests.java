package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.console.ConsoleAudit;
import io.shardingjob.boot.console.ConsoleSecurity;
import io.shardingjob.boot.console.ConsoleWriteAccess;
import io.shardingjob.boot.console.ShardingConsole;
import io.shardingjob.boot.console.ShardingConsoleEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.function.RouterFunction;

/**
 * When the console is served and what decides its operations. Access values are written as the enum's constants: a
 * context runner has no application conversion service to read {@code unrestricted}.
 */
class ShardingConsoleAutoConfigurationTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(Jobs.class)
            .withPropertyValues(TestZooKeeper.properties("console-auto-config-test"));

    @Test
    void isOffByDefault() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(ShardingConsole.class)
                .doesNotHaveBean(RouterFunction.class));
    }

    @Test
    void servesTheConsoleWhenEnabled() {
        runner.withPropertyValues("sharding.console.enabled=true", "sharding.console.path=/ops/jobs/")
                .run(context -> {
                    assertThat(context).hasSingleBean(ShardingConsole.class).hasSingleBean(RouterFunction.class);
                    assertThat(context.getBean(ShardingConsole.class).path()).isEqualTo("/ops/jobs");
                });
    }

    @Test
    void isNotServedByAnApplicationThatIsNotAWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withUserConfiguration(Jobs.class)
                .withPropertyValues(TestZooKeeper.properties("console-non-web-test"))
                .withPropertyValues("sharding.console.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ShardingConsole.class));
    }

    @Test
    void isNotServedWithoutSpringMvc() {
        runner.withPropertyValues("sharding.console.enabled=true")
                .withClassLoader(new FilteredClassLoader(RouterFunction.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ShardingConsole.class));
    }

    @Test
    void refusesAPathThatIsNotAPathOfItsOwn() {
        runner.withPropertyValues("sharding.console.enabled=true", "sharding.console.path=/")
                .run(context -> {
                    assertThat(context)
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(InvalidShardingPropertyException.class)
                            .hasMessageContaining("sharding.console.path");
                    assertThat(new InvalidShardingPropertyFailureAnalyzer().analyze(context.getStartupFailure()))
                            .satisfies(analysis -> {
                                assertThat(analysis.getDescription()).contains("sharding.console.path", "'/'");
                                assertThat(analysis.getAction()).contains("starts with /");
                            });
                });
    }

    @Test
    void allowsOperationsExactlyWhenTheShardingEndpointsAccessIsUnrestricted() {
        runner.withPropertyValues("sharding.console.enabled=true")
                .run(context -> assertThat(
                                context.getBean(ConsoleWriteAccess.class).writesAllowed())
                        .isFalse());
        runner.withPropertyValues("sharding.console.enabled=true", "management.endpoint.sharding.access=READ_ONLY")
                .run(context -> assertThat(
                                context.getBean(ConsoleWriteAccess.class).writesAllowed())
                        .isFalse());
        runner.withPropertyValues("sharding.console.enabled=true", "management.endpoint.sharding.access=UNRESTRICTED")
                .run(context -> assertThat(
                                context.getBean(ConsoleWriteAccess.class).writesAllowed())
                        .isTrue());
        runner.withPropertyValues(
                        "sharding.console.enabled=true",
                        "management.endpoint.sharding.access=UNRESTRICTED",
                        "management.endpoints.access.max-permitted=READ_ONLY")
                .run(context -> assertThat(
                                context.getBean(ConsoleWriteAccess.class).writesAllowed())
                        .isFalse());
    }

    @Test
    void isReadOnlyWithoutActuator() {
        runner.withPropertyValues("sharding.console.enabled=true", "management.endpoint.sharding.access=UNRESTRICTED")
                .withClassLoader(new FilteredClassLoader(EndpointAccessResolver.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(ShardingConsole.class);
                    assertThat(context.getBean(ConsoleWriteAccess.class).writesAllowed())
                            .isFalse();
                });
    }

    @Test
    void asksSpringSecurityForTheOperatorWhenItIsThere() {
        HttpServletRequest anonymous = new MockHttpServletRequest();
        runner.withPropertyValues("sharding.console.enabled=true")
                .run(context -> assertThat(context.getBean(ConsoleSecurity.class)
                                .operator(anonymous)
                                .allowed())
                        .isFalse());
        runner.withPropertyValues("sharding.console.enabled=true")
                .withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context.getBean(ConsoleSecurity.class)
                                .operator(anonymous)
                                .allowed())
                        .isTrue());
    }

    @Test
    void auditsOperationsAsAuditEventsWithActuator() {
        runner.withPropertyValues("sharding.console.enabled=true")
                .run(context -> assertThat(context.getBean(ConsoleAudit.class)).isNotSameAs(ConsoleAudit.none()));
    }

    @Test
    void linksToTheConsoleFromTheActuatorRootWhenTheEndpointIsExposed() {
        runner.withPropertyValues("sharding.console.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(ShardingConsoleEndpoint.class));
        runner.withPropertyValues(
                        "sharding.console.enabled=true",
                        "management.endpoints.web.exposure.include=shardingconsole",
                        "server.servlet.context-path=/app")
                .run(context -> assertThat(
                                context.getBean(ShardingConsoleEndpoint.class).console())
                        .contains("<a href=\"/app/sharding-console\">"));
    }

    @Test
    void backsOffFromAConsoleOfTheApplicationsOwn() {
        runner.withPropertyValues("sharding.console.enabled=true", "management.endpoint.sharding.access=UNRESTRICTED")
                .withBean(ConsoleWriteAccess.class, ConsoleWriteAccess::readOnly)
                .run(context -> assertThat(
                                context.getBean(ConsoleWriteAccess.class).writesAllowed())
                        .isFalse());
    }

    @Configuration(proxyBeanMethods = false)
    static class Jobs {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }
}
