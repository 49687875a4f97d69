package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

class ShardingRegistryAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingRegistryAutoConfiguration.class))
            .withPropertyValues("sharding.zookeeper.namespace=registry-test");

    @Test
    void connectsToTheConnectStringOfTheProperties() {
        runner.withPropertyValues("sharding.zookeeper.connect-string=" + TestZooKeeper.connectString())
                .run(context -> {
                    assertThat(context).hasSingleBean(PropertiesZooKeeperConnectionDetails.class);
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    assertThat(registry.connectString()).isEqualTo(TestZooKeeper.connectString());
                    assertThat(registry.isConnected()).isTrue();
                });
    }

    @Test
    void connectsWhereAConnectionDetailsBeanSaysInsteadOfTheProperties() {
        runner.withPropertyValues("sharding.zookeeper.connect-string=unused.example:2181")
                .withBean(ZooKeeperConnectionDetails.class, () -> TestZooKeeper::connectString)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(PropertiesZooKeeperConnectionDetails.class);
                    assertThat(context.getBean(RegistryCenter.class).connectString())
                            .isEqualTo(TestZooKeeper.connectString());
                });
    }

    @Test
    void startsNoEmbeddedZooKeeperWhenConnectionDetailsSayWhereZooKeeperIs() {
        runner.withConfiguration(AutoConfigurations.of(EmbeddedZooKeeperAutoConfiguration.class))
                .withPropertyValues("sharding.zookeeper.embedded.enabled=true", "sharding.zookeeper.embedded.port=0")
                .withBean(ZooKeeperConnectionDetails.class, () -> TestZooKeeper::connectString)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(EmbeddedZooKeeper.class);
                    assertThat(context.getBean(RegistryCenter.class).connectString())
                            .isEqualTo(TestZooKeeper.connectString());
                });
    }

    @Test
    void appliesEveryBuilderCustomizerInOrderAfterTheProperties() {
        runner.withPropertyValues("sharding.zookeeper.connect-string=" + TestZooKeeper.connectString())
                .withUserConfiguration(Customizers.class)
                .run(context -> {
                    // Lazy: the registry is made when the jobs start, or here. The later customizer's namespace
                    // wins over the first's and over the property.
                    assertThat(context.getBean(RegistryCenter.class).namespace())
                            .isEqualTo("second");
                    assertThat(context.getBean(Customizers.class).applied).containsExactly("first", "second");
                });
    }

    @Test
    void usesACuratorFrameworkOfTheApplicationsOwnAsItIsAndLeavesItOpen() {
        CuratorFramework[] own = new CuratorFramework[1];
        runner.withUserConfiguration(OwnClient.class)
                .withUserConfiguration(Customizers.class)
                .run(context -> {
                    own[0] = context.getBean(CuratorFramework.class);
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    registry.client().create().forPath("/probe");

                    assertThat(own[0].checkExists().forPath("/registry-test/probe"))
                            .isNotNull();
                    assertThat(context.getBean(Customizers.class).applied)
                            .as("customizers build our client, not the application's")
                            .isEmpty();
                });
        // The application closed its client with its context; the registry did not close it first.
        assertThat(own[0].getState()).hasToString("STOPPED");
    }

    @Test
    void refusesAMalformedConnectStringAtOnceNamingTheProperty() {
        long started = System.nanoTime();
        runner.withPropertyValues(
                        "sharding.zookeeper.connect-string=not a host:xx", "sharding.zookeeper.connection-timeout=30s")
                .run(context -> {
                    assertThat(invalidProperty(catchThrowable(() -> context.getBean(RegistryCenter.class))))
                            .hasMessageContaining("sharding.zookeeper.connect-string")
                            .hasMessageContaining("'not a host'");
                });
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("refused without waiting for the connection timeout")
                .isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void namesThePropertyOfAnyOtherSettingThatCannotWork() {
        runner.withPropertyValues(
                        "sharding.zookeeper.connect-string=" + TestZooKeeper.connectString(),
                        "sharding.zookeeper.session-timeout=0s")
                .run(context -> assertThat(invalidProperty(catchThrowable(() -> context.getBean(RegistryCenter.class))))
                        .hasMessageContaining("sharding.zookeeper.session-timeout"));
    }

    @Test
    void measuresTheClockSkewWithTheBoundOfTheProperty() {
        runner.withPropertyValues(
                        "sharding.zookeeper.connect-string=" + TestZooKeeper.connectString(),
                        "sharding.zookeeper.max-clock-skew=750ms")
                .run(context -> {
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> registry.clockSkew().isPresent());
                    assertThat(registry.clockSkew().orElseThrow().bound()).isEqualTo(Duration.ofMillis(750));
                });
    }

    @Test
    void appliesTheClockSkewBoundToAnApplicationsOwnClient() {
        runner.withUserConfiguration(OwnClient.class)
                .withPropertyValues("sharding.zookeeper.max-clock-skew=2s")
                .run(context -> {
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> registry.clockSkew().isPresent());
                    assertThat(registry.clockSkew().orElseThrow().bound()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void namesTheClockSkewPropertyWhenItIsNotPositive() {
        runner.withPropertyValues(
                        "sharding.zookeeper.connect-string=" + TestZooKeeper.connectString(),
                        "sharding.zookeeper.max-clock-skew=0s")
                .run(context -> assertThat(invalidProperty(catchThrowable(() -> context.getBean(RegistryCenter.class))))
                        .hasMessageContaining("sharding.zookeeper.max-clock-skew"));
    }

    /** What Spring Boot's failure analyzer finds in the failure's causes to report the property. */
    private static Throwable invalidProperty(Throwable failure) {
        return Stream.iterate(failure, Objects::nonNull, Throwable::getCause)
                .filter(InvalidConfigurationPropertyValueException.class::isInstance)
                .findFirst()
                .orElseThrow(() -> new AssertionError("No invalid property in the causes of " + failure, failure));
    }

    @Test
    void makesNoClientWhenShardingIsDisabled() {
        runner.withPropertyValues("sharding.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(RegistryCenter.class)
                        .doesNotHaveBean(ZooKeeperConnectionDetails.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {

        final List<String> applied = new ArrayList<>();

        @Bean
        @Order(2)
        CuratorFrameworkBuilderCustomizer second() {
            return builder -> {
                applied.add("second");
                builder.namespace("second");
            };
        }

        @Bean
        @Order(1)
        CuratorFrameworkBuilderCustomizer first() {
            return builder -> {
                applied.add("first");
                builder.namespace("first");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {

        @Bean(initMethod = "start", destroyMethod = "close")
        CuratorFramework applicationClient() {
            return CuratorFrameworkFactory.newClient(TestZooKeeper.connectString(), new RetryOneTime(100));
        }
    }
}
