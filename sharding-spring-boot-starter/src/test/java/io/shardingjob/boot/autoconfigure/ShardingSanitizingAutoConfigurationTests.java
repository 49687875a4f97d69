package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ShardingSanitizingAutoConfigurationTests {

    private static final String SECRETS = "s3cret-digest-password";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ConfigurationPropertiesReportEndpointAutoConfiguration.class,
                    EnvironmentEndpointAutoConfiguration.class,
                    ShardingRegistryAutoConfiguration.class,
                    ShardingSanitizingAutoConfiguration.class))
            .withPropertyValues(
                    "management.endpoints.web.exposure.include=configprops,env",
                    "management.endpoints.jmx.exposure.include=configprops,env",
                    "management.endpoint.configprops.show-values=always",
                    "management.endpoint.env.show-values=always",
                    "sharding.zookeeper.connect-string=zk1:2181",
                    "sharding.zookeeper.digest=ops:" + SECRETS,
                    "sharding.zookeeper.sasl.username=billing",
                    "sharding.zookeeper.sasl.password=" + SECRETS,
                    "spring.ssl.bundle.jks.zookeeper.keystore.password=" + SECRETS,
                    "spring.ssl.bundle.jks.zookeeper.truststore.location=classpath:nowhere.p12",
                    "spring.ssl.bundle.pem.other.keystore.private-key=-----BEGIN PRIVATE KEY-----" + SECRETS,
                    "spring.ssl.bundle.pem.other.key.password=" + SECRETS);

    @Test
    void theDigestTheSaslPasswordAndSslBundleSecretsNeverShowInConfigpropsOrEnvEvenWhenValuesShow() {
        runner.run(context -> {
            String configprops = context
                    .getBean(ConfigurationPropertiesReportEndpoint.class)
                    .configurationPropertiesWithPrefix("sharding")
                    .getContexts()
                    .values()
                    .stream()
                    .flatMap(described -> described.getBeans().values().stream())
                    .map(bean -> bean.getProperties() + " " + bean.getInputs())
                    .collect(Collectors.joining("\n"));
            EnvironmentEndpoint env = context.getBean(EnvironmentEndpoint.class);

            assertThat(configprops).contains("billing", "zk1:2181").doesNotContain(SECRETS);
            assertThat(env.environmentEntry("sharding.zookeeper.digest")
                            .getProperty()
                            .getValue())
                    .isEqualTo("******");
            assertThat(env.environmentEntry("sharding.zookeeper.sasl.password")
                            .getProperty()
                            .getValue())
                    .isEqualTo("******");
            for (String bundleSecret : List.of(
                    "spring.ssl.bundle.jks.zookeeper.keystore.password",
                    "spring.ssl.bundle.pem.other.keystore.private-key",
                    "spring.ssl.bundle.pem.other.key.password")) {
                assertThat(env.environmentEntry(bundleSecret).getProperty().getValue())
                        .as(bundleSecret)
                        .isEqualTo("******");
            }
            assertThat(env.environmentEntry("spring.ssl.bundle.jks.zookeeper.truststore.location")
                            .getProperty()
                            .getValue())
                    .isEqualTo("classpath:nowhere.p12");
        });
    }
}
