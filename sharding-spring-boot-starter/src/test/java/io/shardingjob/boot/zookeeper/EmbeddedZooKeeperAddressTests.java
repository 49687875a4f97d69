package io.shardingjob.boot.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.registry.RegistryConfiguration;
import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The embedded server's address is a connect string the registry accepts, whichever loopback the JVM prefers. */
class EmbeddedZooKeeperAddressTests {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "127.0.0.1 | 127.0.0.1:2181",
                "::1       | [0:0:0:0:0:0:0:1]:2181",
            })
    void writesTheLoopbackAsAConnectStringTheRegistryAccepts(String loopback, String address) throws Exception {
        String connectString = EmbeddedZooKeeper.address(InetAddress.getByName(loopback), 2181);

        assertThat(connectString).isEqualTo(address);
        assertThat(RegistryConfiguration.of(connectString, "jobs").connectString())
                .isEqualTo(address);
    }
}
