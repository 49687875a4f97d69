package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.instance.InstanceId;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** The instance id: the pod's name on Kubernetes, host@-@pid elsewhere, and {@code sharding.instance-id} over both. */
class InstanceIdTests {

    private static final String POD = "orders-7d9f8c6b5-x2kqz";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(Jobs.class)
            .withPropertyValues(Arrays.stream(TestZooKeeper.properties("unused"))
                    .filter(property -> !property.startsWith("sharding.instance-id="))
                    .toArray(String[]::new));

    @Test
    void isThePodNameWhenBootDetectsKubernetesFromThePodsEnvironment() {
        runner.withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .replace(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                new SystemEnvironmentPropertySource(
                                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                        Map.of(
                                                "KUBERNETES_SERVICE_HOST", "10.96.0.1",
                                                "KUBERNETES_SERVICE_PORT", "443",
                                                "HOSTNAME", POD))))
                .run(context -> assertThat(
                                context.getBean(ShardingOperations.class).instanceId())
                        .isEqualTo(POD));
    }

    @Test
    void isThePodNameWhenTheCloudPlatformIsSetToKubernetes() {
        runner.withPropertyValues("spring.main.cloud-platform=kubernetes", "HOSTNAME=" + POD)
                .run(context -> assertThat(
                                context.getBean(ShardingOperations.class).instanceId())
                        .isEqualTo(POD));
    }

    @Test
    void isHostAndPidOffKubernetes() {
        runner.withPropertyValues("spring.main.cloud-platform=none", "HOSTNAME=" + POD)
                .run(context -> assertThat(
                                context.getBean(ShardingOperations.class).instanceId())
                        .isEqualTo(InstanceId.ofThisProcess()));
    }

    @Test
    void isTheConfiguredIdOnKubernetesToo() {
        runner.withPropertyValues(
                        "spring.main.cloud-platform=kubernetes", "HOSTNAME=" + POD, "sharding.instance-id=orders-0")
                .run(context -> assertThat(
                                context.getBean(ShardingOperations.class).instanceId())
                        .isEqualTo("orders-0"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Jobs {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }
}
