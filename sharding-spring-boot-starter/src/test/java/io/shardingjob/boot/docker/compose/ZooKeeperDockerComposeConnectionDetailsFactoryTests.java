package io.shardingjob.boot.docker.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import io.shardingjob.boot.autoconfigure.ZooKeeperConnectionDetails;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * Without Docker (CI has no engine): each service is what Compose hands over once it runs. The source that carries it
 * is mocked only because Boot keeps its constructor to itself.
 */
class ZooKeeperDockerComposeConnectionDetailsFactoryTests {

    private final ZooKeeperDockerComposeConnectionDetailsFactory factory =
            new ZooKeeperDockerComposeConnectionDetailsFactory();

    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "zookeeper:3.9", "docker.io/library/zookeeper:3.9.3"})
    void connectsToTheServicesHostAndItsMappingOfTheClientPort(String image) {
        ZooKeeperConnectionDetails details = this.factory.getConnectionDetails(source(service(image, Map.of())));

        assertThat(details).isNotNull();
        assertThat(details.getConnectString()).isEqualTo("compose.example:32181");
        assertThat(details.getDigest()).isNull();
    }

    @Test
    void takesAServiceOfAnotherImageLabelledAsZooKeeper() {
        RunningService service = service(
                "registry.example/ensembles/zk:3.9",
                Map.of("org.springframework.boot.service-connection", "zookeeper"));

        assertThat(this.factory.getConnectionDetails(source(service))).isNotNull();
    }

    @Test
    void leavesAServiceOfAnotherImageToOtherFactories() {
        assertThat(this.factory.getConnectionDetails(source(service("redis:7", Map.of()))))
                .isNull();
    }

    @Test
    void isFoundBySpringBootsRegistryOfFactoriesInSpringFactories() {
        Map<Class<?>, ConnectionDetails> details = new ConnectionDetailsFactories(
                        getClass().getClassLoader())
                .getConnectionDetails(source(service("zookeeper:3.9", Map.of())), true);

        assertThat(details.get(ZooKeeperConnectionDetails.class))
                .isInstanceOfSatisfying(
                        ZooKeeperConnectionDetails.class,
                        (zooKeeper) -> assertThat(zooKeeper.getConnectString()).isEqualTo("compose.example:32181"));
    }

    private static RunningService service(String image, Map<String, String> labels) {
        return new ComposeService(
                "zookeeper",
                ImageReference.of(image),
                "compose.example",
                new Ports(Map.of(2181, 32181)),
                Map.of(),
                labels);
    }

    private static DockerComposeConnectionSource source(RunningService service) {
        DockerComposeConnectionSource source = mock(DockerComposeConnectionSource.class);
        given(source.getRunningService()).willReturn(service);
        return source;
    }

    private record ComposeService(
            String name,
            ImageReference image,
            String host,
            ConnectionPorts ports,
            Map<String, String> env,
            Map<String, String> labels)
            implements RunningService {}

    /** The ports Compose published: container port to host port, all TCP. */
    private record Ports(Map<Integer, Integer> published) implements ConnectionPorts {

        @Override
        public int get(int containerPort) {
            Integer hostPort = this.published.get(containerPort);
            if (hostPort == null) {
                throw new IllegalStateException("No host port for container port " + containerPort);
            }
            return hostPort;
        }

        @Override
        public List<Integer> getAll() {
            return List.copyOf(this.published.values());
        }

        @Override
        public List<Integer> getAll(String protocol) {
            return "tcp".equals(protocol) ? getAll() : List.of();
        }
    }
}
