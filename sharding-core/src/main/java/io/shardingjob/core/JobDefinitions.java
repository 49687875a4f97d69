package io.shardingjob.core;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.StoredConfiguration;
import io.shardingjob.core.internal.registry.CuratorCaches;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.operation.InvalidOperationException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs defined while the application runs, rather than in its code. A definition names the job's <em>handler</em>, the
 * code that runs its items, which every instance registers under that name itself; the definition and the job's
 * configuration are stored in ZooKeeper, so that every instance of the application runs the job (those that have the
 * handler), and an instance that starts later finds it. A change of the job's cron, items or parameters is a change of
 * its stored configuration, which every instance already follows between fires; a removal stops the job everywhere and
 * deletes its state, the fire ledger included.
 *
 * <p>A definition is {@code active}, or {@code removing} from the moment a removal starts until the job's state is gone:
 * a removal that its caller did not see through (it stopped, say) is finished by the next {@link #remove}, and the name
 * cannot be defined again meanwhile.
 *
 * <p>The listener is called on Curator's cache thread, for every definition there is when it starts and for every
 * change after: it must hand slow work (starting a job waits for ZooKeeper) to a thread of its own.
 */
public final class JobDefinitions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobDefinitions.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    /**
     * A job defined at run time.
     *
     * @param handler the name of the code that runs its items
     * @param removing whether a removal of the job has started
     */
    public record Definition(String jobName, String handler, boolean removing) {

        byte[] encode() {
            return ("handler=" + handler + "\nstate=" + (removing ? "removing" : "active") + "\n")
                    .getBytes(StandardCharsets.UTF_8);
        }

        static Definition decode(String jobName, byte[] data) {
            Map<String, String> fields = new HashMap<>();
            for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
                int equals = line.indexOf('=');
                if (equals > 0) {
                    fields.put(
                            line.substring(0, equals).trim(),
                            line.substring(equals + 1).trim());
                }
            }
            return new Definition(jobName, fields.getOrDefault("handler", ""), "removing".equals(fields.get("state")));
        }
    }

    /** Told of every definition, and of every removal. */
    public interface Listener {

        /** The job is defined and active: run it here when this instance has its handler. */
        void defined(Definition definition);

        /** The job's removal started, or its definition is gone: stop it here. */
        void removed(String jobName);
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final CuratorFramework client;
    private final CuratorCache cache;

    /** Closes the cache and what its start left on the client; set once started. */
    private volatile Runnable closeCache = () -> {};

    private final Map<String, Definition> known = new ConcurrentHashMap<>();
    private final DefinitionStore store;

    /** Definitions recorded on the system clock: see {@link #JobDefinitions(CuratorFramework, Listener, FireSchedule, Clock)}. */
    public JobDefinitions(CuratorFramework client, Listener listener, FireSchedule schedule) {
        this(client, listener, schedule, Clock.systemUTC());
    }

    /**
     * @param client the application's client, rooted at its namespace
     * @param listener told of definitions and removals, on Curator's cache thread
     * @param schedule the program's schedule, which checks a cron before it is stored ({@link FireSchedule#check})
     * @param clock the time a definition, and a change of a job's schedule, is recorded at in its schedule history
     */
    public JobDefinitions(CuratorFramework client, Listener listener, FireSchedule schedule, Clock clock) {
        this.client = client;
        this.store = new DefinitionStore(client, schedule, clock);
        this.cache = CuratorCache.build(client, JobNodes.definitions());
        cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forCreatesAndChanges((before, node) -> changed(node, listener))
                        .forDeletes(node -> deleted(node, listener))
                        .build());
    }

    /** Starts following the definitions; the listener hears of those there already. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("Job definitions can be started only once");
        }
        closeCache = CuratorCaches.start(client, List.of(cache));
    }

    /** The jobs defined and active, as this instance last saw them. */
    public List<Definition> active() {
        return known.values().stream()
                .filter(definition -> !definition.removing())
                .sorted((left, right) -> left.jobName().compareTo(right.jobName()))
                .toList();
    }

    /** A job's definition as this instance last saw it. */
    public Optional<Definition> find(String jobName) {
        return Optional.ofNullable(known.get(jobName));
    }

    /**
     * A job's stored configuration, the one every instance runs it with.
     *
     * @throws NoSuchElementException when there is no such job
     */
    public JobConfiguration storedConfiguration(String jobName) throws Exception {
        return DefinitionStore.storedOrNone(jobName, () -> StoredConfiguration.read(client, jobName));
    }

    /**
     * Defines a job and stores its configuration, in one transaction, with the job's schedule history starting now:
     * nothing before its definition is ever made up for it, whatever an earlier job of that name left.
     *
     * @throws InvalidOperationException naming the job and the input when the name, the handler, the cron or a
     *     parameter breaks its limit: nothing is stored
     * @throws JobConfigurationException naming the job when the name is taken: defined already, being removed, or a job
     *     of that name (declared in some instance's code) has state in ZooKeeper; or naming the job and its
     *     {@code after} or {@code itemWise} when it would make the graph of the namespace's jobs bad (a cycle, an
     *     unknown upstream, item counts that differ): nothing is stored, no other job changes
     */
    public void define(JobConfiguration configuration, String handler) throws Exception {
        store.define(configuration, handler);
    }

    /**
     * Changes a job's stored configuration; every instance applies it between two fires (a new cron from the next fire
     * on, a new count by a reshard once the fires running under the old one are over).
     *
     * @param change the new configuration from the stored one
     * @return the configuration stored now
     * @throws JobConfigurationException when the changed configuration is invalid, or would make the graph of the
     *     namespace's jobs bad (its item count no longer that of an item-wise follower, say); nothing is stored
     * @throws InvalidOperationException naming the job and the input when what changed breaks its limit, or the
     *     schedule cannot read the new cron; nothing is stored
     * @throws NoSuchElementException when there is no such job
     */
    public JobConfiguration update(String jobName, UnaryOperator<JobConfiguration> change) throws Exception {
        return store.update(jobName, change);
    }

    /**
     * Removes a job defined at run time: every instance stops it (letting its running items finish within their grace
     * period), then its state in ZooKeeper, the fire ledger included, is deleted, then its definition.
     *
     * @param wait how long to wait for the instances to stop the job before its state is deleted all the same
     * @param executor where the removal waits and deletes
     * @return completes once the job's state and definition are gone
     * @throws NoSuchElementException when no job of that name is defined at run time
     */
    public CompletableFuture<Void> remove(String jobName, Duration wait, Executor executor) throws Exception {
        return store.remove(jobName, wait, executor);
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) == State.STARTED) {
            closeCache.run();
        }
    }

    private void changed(ChildData node, Listener listener) {
        String jobName = JobNodes.name(node.getPath());
        if (node.getPath().equals(JobNodes.definitions())) {
            return;
        }
        Definition definition = Definition.decode(jobName, node.getData());
        known.put(jobName, definition);
        notify(jobName, () -> {
            if (definition.removing()) {
                listener.removed(jobName);
            } else {
                listener.defined(definition);
            }
        });
    }

    private void deleted(ChildData node, Listener listener) {
        if (node.getPath().equals(JobNodes.definitions())) {
            return;
        }
        String jobName = JobNodes.name(node.getPath());
        Definition last = known.remove(jobName);
        if (last != null && !last.removing()) {
            notify(jobName, () -> listener.removed(jobName));
        }
    }

    private static void notify(String jobName, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: a definitions listener failed", jobName, ex);
        }
    }
}
