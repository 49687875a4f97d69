package io.shardingjob.core.instance;

import io.shardingjob.core.registry.JobNodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;

/**
 * Keeps this instance's ephemeral node under {@code /{job}/instances}. Curator's {@link PersistentNode} re-creates the
 * node after a session expiry, so a job survives losing its session instead of shutting itself down; every creation
 * (first or again) is reported so that the caller can ask for a reshard. Nothing persistent is written per instance,
 * so nothing piles up as instances come and go.
 */
public final class InstanceRegistration implements AutoCloseable {

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final PersistentNode node;

    private final String path;

    public InstanceRegistration(CuratorFramework client, JobNodes nodes, String instanceId, Runnable onRegistered) {
        this.path = nodes.instance(instanceId);
        this.node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, describeThisProcess());
        node.getListenable().addListener(createdPath -> onRegistered.run());
    }

    /** Registers and waits until the node exists. */
    public void start(Duration timeout) {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("Already started: " + path);
        }
        node.start();
        try {
            if (!node.waitForInitialCreate(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Could not register " + path + " within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while registering " + path, ex);
        }
    }

    /** Leaves the registry cleanly: the node is deleted at once rather than when the session times out. */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.STARTED) {
            try {
                node.close();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    private static byte[] describeThisProcess() {
        String text = "pid=" + ProcessHandle.current().pid() + "\nprocess="
                + ManagementFactory.getRuntimeMXBean().getName() + "\nregisteredAt=" + Instant.now() + "\n";
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
