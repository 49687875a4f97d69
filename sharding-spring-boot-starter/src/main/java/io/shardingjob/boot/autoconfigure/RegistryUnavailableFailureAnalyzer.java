package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.registry.RegistryUnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a ZooKeeper that could not be reached at start-up. */
class RegistryUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<RegistryUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RegistryUnavailableException cause) {
        StringBuilder description =
                new StringBuilder("Sharded jobs could not reach ZooKeeper: ").append(cause.getMessage());
        if (cause.getCause() != null) {
            description.append(" (").append(cause.getCause()).append(')');
        }
        return new FailureAnalysis(
                description.toString(),
                "Check that ZooKeeper runs at the address in sharding.zookeeper.connect-string and that this host can"
                        + " reach it, or raise sharding.zookeeper.connection-timeout. For development without a"
                        + " ZooKeeper, set sharding.zookeeper.embedded.enabled=true.",
                cause);
    }
}
