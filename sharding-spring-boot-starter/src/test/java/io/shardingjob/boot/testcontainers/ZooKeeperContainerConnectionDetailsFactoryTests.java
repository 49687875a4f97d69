package io.shardingjob.boot.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import io.shardingjob.boot.autoconfigure.ZooKeeperConnectionDetails;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsNotFoundException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.testcontainers.context.ImportTestcontainers;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Without Docker (CI has no engine): the containers answer as started ones would, and Boot's own
 * {@code @ServiceConnection} support turns them into connection details, naming each after its image.
 */
class ZooKeeperContainerConnectionDetailsFactoryTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ServiceConnectionAutoConfiguration.class));

    @Test
    void connectsToTheContainersHostAndItsMappingOfTheClientPort() {
        this.contextRunner
                .withUserConfiguration(OfficialImage.class)
                .run((context) -> assertThat(context)
                        .getBean(ZooKeeperConnectionDetails.class)
                        .satisfies((details) -> {
                            assertThat(details.getConnectString()).isEqualTo("docker.example:32181");
                            assertThat(details.getDigest()).isNull();
                        }));
    }

    @Test
    void takesAContainerOfAnotherImageWhoseServiceConnectionIsNamedZooKeeper() {
        this.contextRunner
                .withUserConfiguration(NamedServiceConnection.class)
                .run((context) -> assertThat(context)
                        .getBean(ZooKeeperConnectionDetails.class)
                        .extracting(ZooKeeperConnectionDetails::getConnectString)
                        .isEqualTo("docker.example:32181"));
    }

    @Test
    void leavesAContainerOfAnotherImageToOtherFactories() {
        // No other factory here takes a redis container, so Boot finding none shows that ours declined it.
        this.contextRunner
                .withUserConfiguration(AnotherImage.class)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(ConnectionDetailsNotFoundException.class)
                        .hasMessageContaining("redisContainer"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void isFoundBySpringBootsRegistryOfFactoriesInSpringFactories() {
        ContainerConnectionSource<Container<?>> source = mock(ContainerConnectionSource.class);
        given(source.accepts("zookeeper", Container.class, ZooKeeperConnectionDetails.class))
                .willReturn(true);

        Map<Class<?>, ConnectionDetails> details =
                new ConnectionDetailsFactories(getClass().getClassLoader()).getConnectionDetails(source, true);

        assertThat(details).containsOnlyKeys(ZooKeeperConnectionDetails.class);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportTestcontainers
    static class OfficialImage {

        @ServiceConnection
        static final StartedContainer zooKeeperContainer = new StartedContainer("zookeeper:3.9");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportTestcontainers
    static class NamedServiceConnection {

        @ServiceConnection(name = "zookeeper")
        static final StartedContainer zooKeeperContainer = new StartedContainer("registry.example/ensembles/zk:3.9");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportTestcontainers
    static class AnotherImage {

        @ServiceConnection
        static final StartedContainer redisContainer = new StartedContainer("redis:7");
    }

    /**
     * A container that answers as a started one whose port 2181 is published on 32181 of {@code docker.example}, and
     * that never asks Docker: a real one asks it for its image, host and ports.
     */
    static final class StartedContainer extends GenericContainer<StartedContainer> {

        private final String image;

        StartedContainer(String image) {
            super(DockerImageName.parse(image));
            this.image = image;
        }

        @Override
        public String getDockerImageName() {
            return this.image;
        }

        @Override
        public String getHost() {
            return "docker.example";
        }

        @Override
        public Integer getMappedPort(int originalPort) {
            assertThat(originalPort).as("the port asked for").isEqualTo(2181);
            return 32181;
        }

        @Override
        public boolean isRunning() {
            return true;
        }

        @Override
        public void start() {
            throw new UnsupportedOperationException("A started container is not started again");
        }

        @Override
        public void stop() {}
    }
}
