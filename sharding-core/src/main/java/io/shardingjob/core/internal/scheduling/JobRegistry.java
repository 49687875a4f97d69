package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.registry.InstanceRegistration;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.LeavingMark;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import io.shardingjob.core.internal.scheduling.session.RegistryReactions;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;

/**
 * One job's parts on ZooKeeper's side, built first because every later part reads the registry through them: its
 * paths, its cache of the small state, the shared configuration, the election, the assignment, and this instance's
 * registration and leaving mark. Nothing talks to ZooKeeper while they are built.
 */
record JobRegistry(
        CuratorFramework client,
        JobNodes nodes,
        JobCache cache,
        JobConfigurationService configurations,
        LeaderElection election,
        ShardingService sharding,
        InstanceRegistration registration,
        LeavingMark leavingMark) {

    /** @param leadership told when this instance becomes or stops being the leader */
    static JobRegistry of(
            JobSettings settings, String instanceId, SerialExecutor serial, Consumer<Boolean> leadership) {
        CuratorFramework client = settings.instance().client();
        JobConfiguration local = settings.configuration();
        JobNodes nodes = new JobNodes(local.name());
        JobCache cache = new JobCache(client, nodes, serial);
        JobConfigurationService configurations = new JobConfigurationService(
                client,
                nodes,
                cache,
                local,
                settings.instance().clock(),
                settings.history().catchUpHorizon());
        LeaderElection election = new LeaderElection(client, nodes, instanceId, cache, serial, leadership);
        ShardingService sharding = new ShardingService(
                client,
                nodes,
                cache,
                configurations::effective,
                settings.instance().strategies()::get,
                election::isLeader);
        LeavingMark leavingMark = new LeavingMark(client, nodes, instanceId);
        InstanceRegistration registration = new InstanceRegistration(
                client,
                nodes,
                instanceId,
                () -> serial.submit(() -> {
                    leavingMark.registered();
                    return RegistryReactions.instanceRegistered(sharding, local.name(), instanceId);
                }));
        return new JobRegistry(client, nodes, cache, configurations, election, sharding, registration, leavingMark);
    }
}
