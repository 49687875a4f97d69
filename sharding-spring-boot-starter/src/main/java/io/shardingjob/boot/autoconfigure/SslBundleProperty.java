package io.shardingjob.boot.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** An SSL bundle named by a property: found, or a start-up error naming the property and where to define it. */
final class SslBundleProperty {

    private SslBundleProperty() {}

    static SslBundle resolve(ObjectProvider<SslBundles> sslBundles, String property, String name) {
        SslBundles bundles = sslBundles.getIfAvailable();
        if (bundles == null) {
            throw new InvalidConfigurationPropertyValueException(
                    property, name, "No SSL bundles are configured (spring.ssl.bundle.*)");
        }
        try {
            return bundles.getBundle(name);
        } catch (NoSuchSslBundleException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    property,
                    name,
                    "No SSL bundle of that name: define it under spring.ssl.bundle.jks." + name + " or"
                            + " spring.ssl.bundle.pem." + name);
        }
    }
}
