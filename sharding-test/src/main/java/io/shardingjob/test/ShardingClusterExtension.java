package io.shardingjob.test;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Gives a test method a {@link ShardingCluster} of its own, started when the test asks for it and closed once the test
 * ended, passed or failed: on one ZooKeeper server, or on an ensemble of {@link ShardingTest#ensemble()} servers. Use it
 * through {@link ShardingTest}.
 */
public final class ShardingClusterExtension implements ParameterResolver, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ShardingClusterExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ShardingCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NAMESPACE)
                .computeIfAbsent(ShardingCluster.class, type -> started(context), ShardingCluster.class);
    }

    /** A single server, or the ensemble the test class's {@link ShardingTest#ensemble()} asks for. */
    private static ShardingCluster started(ExtensionContext context) {
        int servers = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), ShardingTest.class)
                .map(ShardingTest::ensemble)
                .orElse(1);
        return servers == 1 ? ShardingCluster.start() : ShardingCluster.startEnsemble(servers);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        ShardingCluster cluster = context.getStore(NAMESPACE).remove(ShardingCluster.class, ShardingCluster.class);
        if (cluster != null) {
            cluster.close();
        }
    }
}
