package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.ScheduleHistoryWrites;
import io.shardingjob.core.internal.registry.FollowerEdges;
import io.shardingjob.core.internal.registry.InstanceRegistration;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import io.shardingjob.core.internal.scheduling.fire.AssignmentWait;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.internal.scheduling.session.GracefulClose;
import io.shardingjob.core.internal.scheduling.session.PeriodicCheck;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of one job that hold a resource or a session, started and closed here in the order they depend on each
 * other; {@link JobWiring} builds them. Kept apart from the {@link JobRuntime}, which reads as what the job does with
 * them (its lifecycle), rather than as the order twenty parts come and go in.
 *
 * @param assignmentWait woken whenever the lifecycle changes, so that no fire waits on a job that is closing
 */
record JobParts(
        JobRegistry registry,
        ConnectionGuard connection,
        PeriodicCheck periodicCheck,
        GracefulClose gracefulClose,
        AssignmentWait assignmentWait,
        CoordinationThreads threads) {

    private static final Logger log = LoggerFactory.getLogger(JobParts.class);

    /**
     * Creates the job's nodes, publishes or reads the shared configuration, loads the cache, registers this instance
     * (marked leaving first if it stands by) and joins the election unless an operator disabled this instance.
     */
    void start(Duration startTimeout, Clock clock) throws Exception {
        CuratorFramework client = registry.client();
        JobNodes nodes = registry.nodes();
        String instanceId = registry.registration().instanceId();
        // Sent with the structure's read, in the same request: what they find holds once the structure is created.
        CompletableFuture<ScheduleHistoryWrites.Stored> stored = ScheduleHistoryWrites.readStoredAsync(client, nodes);
        CompletableFuture<List<String>> upstreams = FollowerEdges.registeredUpstreamsAsync(client, nodes);
        // A first start stores its configuration with its structure's creates, in one request.
        boolean storedFirst = JobStructure.ensure(client, List.of(nodes), () -> firstStore(answeredOrNull(stored)));
        // Registered with its upstreams before it registers itself: a fire of theirs completing from then on is
        // recorded here, to be made up by this instance's audit if nothing else runs it.
        FollowerEdges.register(
                client,
                registry.configurations().publish(answeredOrNull(stored), storedFirst),
                answeredOrNull(upstreams));
        registry.cache().start(startTimeout);
        connection.start();
        registry.leavingMark().beforeRegistering();
        registry.registration().start(startTimeout);
        if (!registry.cache().exists(nodes.disabledInstance(instanceId))) {
            registry.election().join();
        }
        // Phased from now, once started: every job of this instance checks at the same instants.
        periodicCheck.start(clock.millis(), instanceId);
    }

    /** Stops starting items and lets the runs here end, while the job is still registered. */
    void stopRunning() {
        assignmentWait.signal();
        gracefulClose.run();
    }

    /**
     * What stores the configuration on a first start, as the early read found the registry; nothing when it failed, or
     * when the configuration is refused: the publish then reads again, and refuses it naming the job and the property.
     */
    private List<Op> firstStore(ScheduleHistoryWrites.@Nullable Stored stored) {
        if (stored == null) {
            return List.of();
        }
        try {
            return registry.configurations().firstStore(stored);
        } catch (JobConfigurationException refused) {
            return List.of();
        }
    }

    /** An early read's answer; null when it failed (lost with the connection), and its user reads again. */
    private static <T> @Nullable T answeredOrNull(CompletableFuture<T> read) {
        try {
            return read.join();
        } catch (CompletionException | CancellationException failed) {
            return null;
        }
    }

    /**
     * Closes every part that holds a resource, each even if an earlier one fails (the client may be closed already).
     *
     * @return whether the registration was deleted while its session lives on (see {@link InstanceRegistration#leave()})
     */
    boolean close() {
        periodicCheck.stop();
        connection.close();
        closeQuietly(registry.election(), "leader election");
        boolean deregistered = false;
        try {
            deregistered = registry.registration().leave();
        } catch (RuntimeException ex) {
            log.warn("Job {}: closing the {} failed: {}", jobName(), "registration", ex.toString());
        }
        closeQuietly(registry.cache(), "cache");
        threads.shutdown();
        assignmentWait.signal();
        return deregistered;
    }

    private void closeQuietly(AutoCloseable part, String what) {
        try {
            part.close();
        } catch (Exception ex) {
            log.warn("Job {}: closing the {} failed: {}", jobName(), what, ex.toString());
        }
    }

    private String jobName() {
        return JobNodes.name(registry.nodes().root());
    }
}
