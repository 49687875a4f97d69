package io.shardingjob.boot.autoconfigure;

import java.util.List;
import java.util.Locale;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Hides the ZooKeeper credentials of {@code sharding.zookeeper.*} in {@code /actuator/configprops} and {@code
 * /actuator/env}, even where an application lets them show values ({@code show-values: always}, under which Actuator
 * hides nothing by itself): the digest ({@code user:password}) and the SASL password, wherever they are set (a property,
 * an environment variable), and the passwords and private keys of SSL bundles ({@code spring.ssl.bundle.*}), where the
 * key material of TLS to ZooKeeper comes from.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class ShardingSanitizingAutoConfiguration {

    /** The secret properties in every form the environment may carry them: letters and digits only. */
    private static final List<String> SECRETS = List.of("shardingzookeeperdigest", "shardingzookeepersaslpassword");

    /** The secrets of SSL bundles (which a TLS connection to ZooKeeper reads its key material from), same form. */
    private static final String SSL_BUNDLE = "springsslbundle";

    private static final List<String> SSL_BUNDLE_SECRETS = List.of("password", "privatekey");

    @Bean
    SanitizingFunction shardingZooKeeperCredentials() {
        return SanitizingFunction.sanitizeValue().ifKeyMatches(key -> {
            String letters = key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
            return SECRETS.stream().anyMatch(letters::endsWith)
                    || (letters.contains(SSL_BUNDLE)
                            && SSL_BUNDLE_SECRETS.stream().anyMatch(letters::endsWith));
        });
    }
}
