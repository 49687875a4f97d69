package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code sharding.zookeeper.sasl.*} against a real ZooKeeper server in its own JVM that knows one user (SASL
 * DIGEST-MD5, from a JAAS file made at test time) and serves only authenticated sessions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class ShardingRegistrySaslTests {

    private static final String PASSWORD = "s3cret-of-billing";

    private final ProcessGroup processes = new ProcessGroup();

    private ApplicationContextRunner runner;

    @BeforeAll
    void startAServerThatKnowsOneUser() {
        ZooKeeperServers.Server server =
                ZooKeeperServers.sasl(processes, "starter-sasl/zookeeper", Map.of("billing", PASSWORD));
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ShardingRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "sharding.zookeeper.namespace=sasl-test",
                        "sharding.zookeeper.connect-string=" + server.address(),
                        "sharding.zookeeper.connection-timeout=5s",
                        "sharding.zookeeper.sasl.username=billing");
    }

    @AfterAll
    void stopIt() {
        processes.close();
    }

    @Test
    void theRightPasswordConnects() {
        runner.withPropertyValues("sharding.zookeeper.sasl.password=" + PASSWORD)
                .run(context -> {
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    registry.client().create().forPath("/probe");

                    assertThat(registry.client().checkExists().forPath("/probe"))
                            .isNotNull();
                });
    }

    @Test
    void aWrongPasswordFailsStartUpSayingWhatToCheckAndNeverShowsAPassword(CapturedOutput output) {
        runner.withPropertyValues("sharding.zookeeper.sasl.password=not-" + PASSWORD)
                .run(context -> {
                    Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

                    assertThat(failure).rootCause().isInstanceOf(RegistryUnavailableException.class);
                    assertThat(failure)
                            .rootCause()
                            .hasMessageContaining("SASL login")
                            .hasMessageContaining("billing")
                            .hasMessageContaining("sharding.zookeeper.sasl");
                });

        assertThat(output.getAll()).doesNotContain(PASSWORD);
    }

    @Test
    void aLoginContextTheJvmsJaasConfigurationDoesNotHaveFailsNamingTheProperty() {
        runner.withPropertyValues("sharding.zookeeper.sasl.login-context=NoSuchSection")
                .run(context -> {
                    Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

                    assertThat(failure)
                            .hasStackTraceContaining(InvalidConfigurationPropertyValueException.class.getName()
                                    + ": Property sharding.zookeeper.sasl.login-context")
                            .hasStackTraceContaining("no section 'NoSuchSection'");
                });
    }

    @Test
    void aUserWithoutAPasswordFailsNamingTheProperty() {
        runner.run(context -> {
            Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

            assertThat(failure)
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("sharding.zookeeper.sasl.password");
        });
    }
}
