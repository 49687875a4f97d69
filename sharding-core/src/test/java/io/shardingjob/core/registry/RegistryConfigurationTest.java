package io.shardingjob.core.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A malformed connect string fails at once, naming the entry at fault, instead of after the connection timeout. */
class RegistryConfigurationTest {

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(
            strings = {
                "localhost",
                "localhost:2181",
                "zk1:2181,zk2:2181,zk3:2181",
                "zk1,zk2:2182,zk3",
                "zk-1.example.com:2181",
                "zk-0.zk-hs.default.svc.cluster.local.:2181",
                "ZK1.EXAMPLE.COM:2181",
                "1zk:2181",
                "zoo_1:2181",
                "127.0.0.1:2181",
                "10.0.0.5",
                "0.0.0.0:1",
                "255.255.255.255:65535",
                "[::1]:2181",
                "[::1]",
                "[2001:db8::8a2e:370:7334]:2181",
                "[::ffff:10.0.0.5]:2181",
                "zk1:2181, zk2:2181 , zk3:2181",
                "zk1:2181,zk2:2181/apps",
                "zk1:2181/apps/orders",
                "[::1]:2181/apps",
                "zk1:2181/",
            })
    void acceptsHostAndPortEntriesWithAnOptionalChroot(String connectString) {
        assertThat(RegistryConfiguration.of(connectString, "jobs").connectString())
                .isEqualTo(connectString);
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "not a host:xx                  | the entry 'not a host:xx' has the host 'not a host'",
                "zk1:xx                         | the entry 'zk1:xx' has the port 'xx', which is not a number from 1 to 65535",
                "zk1:0                          | the port '0'",
                "zk1:65536                      | the port '65536'",
                "zk1:2181000                    | the port '2181000'",
                "zk1:+2181                      | the port '+2181'",
                "zk1:-1                         | the port '-1'",
                "zk1:                           | the entry 'zk1:' has ':' but no port after it",
                ":2181                          | the entry ':2181' has no host before its port",
                "zk1:2181,,zk3:2181             | an entry is empty",
                "zk1:2181,                      | an entry is empty",
                ",zk1:2181                      | an entry is empty",
                "zk1:2181;zk2:2181              | the entry 'zk1:2181;zk2:2181' has more than one ':'; separate entries with ','",
                "zk1 zk2:2181                   | the host 'zk1 zk2'",
                "http://zk1:2181                | the entry 'http:' has ':' but no port",
                "-zk1:2181                      | the host '-zk1'",
                "zk1-:2181                      | the host 'zk1-'",
                "zk..example.com:2181           | the host 'zk..example.com'",
                "zk1.example.com..:2181         | the host 'zk1.example.com..'",
                "订单.example.com:2181           | the host '订单.example.com'",
                "256.1.1.1:2181                 | the host '256.1.1.1'",
                "10.0.0:2181                    | the host '10.0.0'",
                "10.0.0.5.6:2181                | the host '10.0.0.5.6'",
                "2181                           | the host '2181'",
                "::1:2181                       | put an IPv6 address in brackets, as in '[::1]:2181'",
                "2001:db8::1                    | more than one ':'",
                "[::1:2181                      | has no ']' closing its IPv6 address",
                "[::1]2181                      | has '2181' after its IPv6 address",
                "[::1]:                         | has ':' but no port after it",
                "[::1]:99999                    | the port '99999'",
                "[zk1]:2181                     | has '[zk1]', which is not an IPv6 address",
                "[1:2:3:4:5:6:7:8:9]:2181       | has '[1:2:3:4:5:6:7:8:9]', which is not an IPv6 address",
                "[fe80::1%eth0]:2181            | which is not an IPv6 address",
                "/apps                          | it names no host before its chroot path",
                "zk1:2181/apps,zk2:2181         | the chroot path '/apps,zk2:2181' holds a ','",
                "zk1:2181/apps/                 | the chroot path '/apps/' is not a valid ZooKeeper path",
                "zk1:2181//apps                 | the chroot path '//apps' is not a valid ZooKeeper path",
                "zk1:2181/apps/../x             | the chroot path '/apps/../x' is not a valid ZooKeeper path",
            })
    void refusesAMalformedConnectStringNamingTheEntryAndShowingAValidOne(String connectString, String problem) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RegistryConfiguration.of(connectString, "jobs"))
                .withMessageStartingWith("Invalid ZooKeeper connect string '" + connectString + "': ")
                .withMessageContaining(problem)
                .withMessageEndingWith(". Give host or host:port entries separated by commas, e.g."
                        + " 'zk1:2181,zk2:2181,zk3:2181', '10.0.0.5:2181' or '[::1]:2181', optionally followed by a"
                        + " chroot path as in 'zk1:2181,zk2:2181/apps'");
    }

    @Test
    void explainsTheReportedConnectStringInOneSentence() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RegistryConfiguration.of("not a host:xx", "jobs"))
                .withMessage("Invalid ZooKeeper connect string 'not a host:xx': the entry 'not a host:xx' has the host"
                        + " 'not a host', which is neither an IPv4 address, a host name nor an IPv6 address in"
                        + " brackets. Give host or host:port entries separated by commas, e.g."
                        + " 'zk1:2181,zk2:2181,zk3:2181', '10.0.0.5:2181' or '[::1]:2181', optionally followed by a"
                        + " chroot path as in 'zk1:2181,zk2:2181/apps'");
    }

    @Test
    void acceptsAHostNameOfTheLongestLabelsButNoLonger() {
        String longest = "a".repeat(63);

        assertThat(RegistryConfiguration.of(longest + ".example.com:2181", "jobs"))
                .isNotNull();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RegistryConfiguration.of(longest + "a.example.com:2181", "jobs"))
                .withMessageContaining("the host '" + longest + "a.example.com'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RegistryConfiguration.of(
                        String.join(".", longest, longest, longest, longest) + ":2181", "jobs"))
                .withMessageContaining("neither an IPv4 address, a host name");
    }

    @Test
    void itsTextNamesTheDigestsUserButNeverItsPassword() {
        RegistryConfiguration configuration =
                RegistryConfiguration.of("zk1:2181", "billing").withDigest("ops:s3cret-pass");

        assertThat(configuration.toString()).contains("ops:******").doesNotContain("s3cret-pass");
    }
}
