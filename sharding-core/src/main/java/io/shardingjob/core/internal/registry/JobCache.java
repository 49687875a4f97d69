package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local, watch-maintained copy of the small state of one job, everything under its root ({@link JobNodes#cached()}),
 * watched with one recursive watch: steady-state reads come from here, never from a round trip. The fire ledger is
 * kept outside the root ({@link JobNodes#ledger()}) and not cached: it grows with fires and items, and a watch over it
 * would tell every instance of every claim, start and end. Listeners run on the executor given, never on ZooKeeper's
 * event thread, so they may block briefly without stalling other watches.
 *
 * <p>Why not Curator's {@code CuratorCache}: it reads every node with two requests of its own, so a job's start cost
 * about 47 reads, thousands of jobs starting sent hundreds of thousands of requests, and ten caches a job set ten
 * watches. Here every read goes in the multis of reads every job of the client shares ({@link ClientRequests}), the
 * nodes that grow with the job's items sized from their size records, read first ({@link RecordedSizes}).
 *
 * <p>How it stays true: the watch is set before the load's reads are sent, so a change after a read is told by an
 * event, and every event of a node is answered by a fresh read of it (a deletion, at once); of the reads of one node on
 * their way, only the latest one's answer is kept ({@link ReadStamps}). After a reconnection the watch is set and
 * everything read again (a persistent watch does not tell what changed while the connection was down), and what that
 * load no longer finds is removed.
 */
public final class JobCache implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobCache.class);
    private final CuratorFramework client;
    private final ClientRequests requests;
    private final String watched;

    /** Whose nodes a load reads first ({@link CacheLoad#firstReads}). */
    private final JobNodes job;

    private final CachedNodes nodes;
    private final RecordedSizes sizes;

    /** Sends the reads and hands their answers to the nodes; its lock orders the cache's events and answers. */
    private final CacheReads reads;

    /** The load under way, or null; guarded by {@link #reads}. */
    private @Nullable CacheLoad load;

    private final CountDownLatch initialized = new CountDownLatch(1);
    private final Watcher watcher = this::changed;
    private final ConnectionStateListener connectionListener = this::connectionChanged;
    private volatile boolean started;
    private volatile boolean closed;

    public JobCache(CuratorFramework client, JobNodes nodes, Executor listenerExecutor) {
        this.client = client;
        this.requests = new ClientRequests(client, "Cache");
        this.watched = nodes.cached();
        this.job = nodes;
        this.nodes = new CachedNodes(listenerExecutor);
        this.sizes = new RecordedSizes(nodes, this.nodes);
        this.reads = new CacheReads(requests, this.nodes, sizes, this::loadRead);
    }

    /** Tells {@code onChange} the path of every created, changed or deleted node, and null once the first load is. */
    public void addListener(Consumer<@Nullable String> onChange) {
        nodes.addListener(onChange);
    }

    /** Starts watching and waits until the first full load is in memory. */
    public void start(Duration timeout) {
        started = true;
        client.getConnectionStateListenable().addListener(connectionListener);
        watchAndLoad();
        try {
            if (!initialized.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new RegistryUnavailableException(
                        "The job's registry data did not load within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RegistryUnavailableException("Interrupted while loading the job's registry data", ex);
        }
    }

    public Optional<ChildData> node(String path) {
        return nodes.node(path);
    }

    public Optional<byte[]> data(String path) {
        return node(path).map(ChildData::getData);
    }

    public boolean exists(String path) {
        return nodes.exists(path);
    }

    /** The names of the direct children of a path, sorted. */
    public List<String> children(String path) {
        return nodes.children(path);
    }

    @Override
    public void close() {
        closed = true;
        nodes.close();
        if (!started) {
            return;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        ZooKeeper zooKeeper;
        try {
            zooKeeper = requests.zooKeeper();
        } catch (Exception clientClosed) {
            return;
        }
        // Removed on the server so that it stops telling this client; locally even when the server cannot answer.
        zooKeeper.removeWatches(
                requests.full(watched), watcher, Watcher.WatcherType.Any, true, (rc, p, context) -> {}, null);
    }

    /** Sets the watch, then reads everything it covers: a change after a read is then always told. */
    private void watchAndLoad() {
        if (closed) {
            return;
        }
        ZooKeeper zooKeeper;
        try {
            zooKeeper = requests.zooKeeper();
        } catch (Exception unavailable) {
            // The connection's return loads again.
            return;
        }
        addWatch(zooKeeper);
        synchronized (reads) {
            CacheLoad started = new CacheLoad(reads.next());
            load = started;
            sizes.reload();
            reads.read(started.firstReads(job, watched, sizes.records()), started);
            loadRead(started);
        }
    }

    private void addWatch(ZooKeeper zooKeeper) {
        var trace = client.getZookeeperClient().startAdvancedTracer("CacheAddWatch");
        zooKeeper.addWatch(
                requests.full(watched),
                watcher,
                AddWatchMode.PERSISTENT_RECURSIVE,
                (rc, p, context) -> {
                    trace.setReturnCode(rc);
                    trace.commit();
                    if (rc != KeeperException.Code.OK.intValue()) {
                        // A lost connection sets it again on its return; anything else leaves the cache blind.
                        log.debug("Could not watch {}: {}", watched, KeeperException.Code.get(rc));
                    }
                },
                null);
    }

    private void connectionChanged(CuratorFramework changed, ConnectionState state) {
        if (state == ConnectionState.RECONNECTED) {
            // The watch may be gone with an expired session, and changes while disconnected were never told.
            watchAndLoad();
        }
    }

    /** ZooKeeper's event thread tells a change under a watch. */
    private void changed(WatchedEvent event) {
        String fullPath = event.getPath();
        if (closed || fullPath == null || event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        String path = fullPath.substring(requests.full("").length());
        synchronized (reads) {
            switch (event.getType()) {
                case NodeDeleted -> reads.deleted(path);
                case NodeCreated, NodeDataChanged -> {
                    if (sizes.isRecord(path)) {
                        sizes.recordChanged(path, event.getZxid());
                    }
                    if (!sizes.awaitsRecord(path, event.getZxid())) {
                        reads.read(path);
                    }
                }
                default -> {
                    // Children changed: each created or deleted child has an event of its own.
                }
            }
        }
    }

    /** One read of the load answered, under the reads' lock: the last one ends it, removing what it no longer found. */
    private void loadRead(CacheLoad done) {
        if (!done.answered() || done != load) {
            return;
        }
        load = null;
        if (done.hasFailed() || closed) {
            return;
        }
        nodes.removeUnfound(done);
        if (initialized.getCount() > 0) {
            initialized.countDown();
            nodes.tell(null);
        }
    }
}
