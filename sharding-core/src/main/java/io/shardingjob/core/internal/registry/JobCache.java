package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local, watch-maintained copy of the small state of one job: its configuration, instances, leader, assignment and
 * disabled or leaving instances and items: everything under the job's root ({@link JobNodes#cached()}), watched with
 * one recursive watch. Steady-state reads come from here, never from a ZooKeeper round trip. The fire ledger is
 * deliberately not cached, and kept outside the root ({@link JobNodes#ledger()}): it grows with fires and items, and
 * a watch over it would tell every instance of every claim, start and end. Listeners run on the executor given at
 * construction, never on ZooKeeper's event thread, so they may block briefly without stalling other watches.
 *
 * <p>Why not Curator's {@code CuratorCache}: it reads every node with two requests of its own (its data, its
 * children), so a job's start cost about 47 reads; thousands of jobs starting sent hundreds of thousands of requests,
 * and the server and the client spent their cores on them; and ten caches a job set ten watches. Here one recursive
 * watch is set, and every read (the loads' and the changes') goes in the multis of reads that every job of the client
 * shares ({@link ClientRequests}): a thousand jobs' loads take a few requests.
 *
 * <p>How it stays true: the watch is set before the load's reads are sent, so a change after a read is told by an
 * event, and every event of a node is answered by a fresh read of it (a deletion, at once). Of the reads of one node
 * on their way, only the latest one's answer is kept: one sent before an event of that node may have read what that
 * event changed. After a reconnection the watch is set again and everything is read again (a persistent watch does
 * not tell what changed while the connection was down), and what that load no longer finds is removed.
 */
public final class JobCache implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobCache.class);

    private final CuratorFramework client;

    private final ClientRequests requests;

    /** Watched with its descendants: the job's root. */
    private final String watched;

    private final Executor listenerExecutor;

    /** The nodes whose data grow with the job's items: {@link #dataBytes}. */
    private final Set<String> largeNodes;

    /** Whose nodes a load reads first ({@link CacheLoad#firstReads}). */
    private final JobNodes job;

    private final List<Consumer<@Nullable String>> listeners = new CopyOnWriteArrayList<>();

    /** Every node cached, by path relative to the namespace: sorted, so that a node's children are one range. */
    private final NavigableMap<String, Entry> nodes = new ConcurrentSkipListMap<>();

    /** Numbers every read and event, and decides which read's answer counts; guarded by {@code this}. */
    private final ReadStamps stamps = new ReadStamps();

    /** The load under way, or null; guarded by {@code this}. */
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
        this.listenerExecutor = listenerExecutor;
        this.largeNodes = Set.of(nodes.config(), nodes.history(), nodes.assignment());
        this.job = nodes;
    }

    /** A cached node, and the stamp it was last read or removed at. */
    private record Entry(ChildData data, long stamp) {}

    /**
     * Adds a listener told the path of every created, changed or deleted node, and {@code null} once the initial load
     * is complete.
     */
    public void addListener(Consumer<@Nullable String> onChange) {
        listeners.add(onChange);
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
        Entry entry = nodes.get(path);
        return entry == null ? Optional.empty() : Optional.of(entry.data);
    }

    public Optional<byte[]> data(String path) {
        return node(path).map(ChildData::getData);
    }

    public boolean exists(String path) {
        return nodes.containsKey(path);
    }

    /** The names of the direct children of a path, sorted. */
    public List<String> children(String path) {
        String prefix = path + "/";
        List<String> children = new ArrayList<>();
        // '0' follows '/': the range holds exactly the paths under this one.
        for (String descendant : nodes.subMap(prefix, path + "0").keySet()) {
            if (descendant.indexOf('/', prefix.length()) < 0) {
                children.add(descendant.substring(prefix.length()));
            }
        }
        return children;
    }

    @Override
    public void close() {
        closed = true;
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
        synchronized (this) {
            CacheLoad started = new CacheLoad(stamps.next());
            load = started;
            read(started.firstReads(job, watched, largeNodes), started);
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
        synchronized (this) {
            switch (event.getType()) {
                case NodeDeleted -> {
                    stamps.deleted(path);
                    remove(path);
                }
                case NodeCreated, NodeDataChanged -> read(path);
                default -> {
                    // Children changed: each created or deleted child has an event of its own.
                }
            }
        }
    }

    /** Sends a read of the node, merged with the client's others. */
    private void read(String path) {
        read(List.of(new CacheLoad.Asked(path, false)), null);
    }

    /** Sends the reads of the nodes (and their children when a load reads them) as one part of the client's multis. */
    private void read(List<CacheLoad.Asked> batch, @Nullable CacheLoad partOf) {
        if (batch.isEmpty()) {
            return;
        }
        long[] sent = new long[batch.size()];
        List<Op> ops = new ArrayList<>(2 * batch.size());
        long dataBytes = ClientRequests.READ_DATA_BYTES;
        for (int i = 0; i < batch.size(); i++) {
            CacheLoad.Asked asked = batch.get(i);
            sent[i] = stamps.sent(asked.path());
            if (partOf != null) {
                partOf.sent();
            }
            ops.add(Op.getData(requests.full(asked.path())));
            if (asked.withChildren()) {
                ops.add(Op.getChildren(requests.full(asked.path())));
            }
            dataBytes = Math.max(dataBytes, dataBytes(asked.path()));
        }
        requests.readAsync("MultiRead", ops, ClientRequests.SMALL_LISTING_BYTES, dataBytes)
                .whenComplete((answer, failure) -> answered(batch, sent, partOf, answer, failure));
    }

    /** Hands each node of a batch its share of the answer. */
    private synchronized void answered(
            List<CacheLoad.Asked> batch,
            long[] sent,
            @Nullable CacheLoad partOf,
            @Nullable MultiAnswer answer,
            @Nullable Throwable failure) {
        int at = 0;
        for (int i = 0; i < batch.size(); i++) {
            int ops = batch.get(i).withChildren() ? 2 : 1;
            MultiAnswer own = answer == null || failure != null
                    ? null
                    : new MultiAnswer(answer.code(), answer.results().subList(at, at + ops));
            answered(batch.get(i).path(), sent[i], partOf, own, failure);
            at += ops;
        }
    }

    private synchronized void answered(
            String path,
            long stamp,
            @Nullable CacheLoad partOf,
            @Nullable MultiAnswer answer,
            @Nullable Throwable failure) {
        boolean latest = stamps.answered(path, stamp);
        if (failure != null || answer == null) {
            // Lost with the connection: its return loads everything again.
            if (partOf != null) {
                partOf.failed();
                loadRead(partOf);
            }
            return;
        }
        OpResult data = answer.results().get(0);
        if (data instanceof OpResult.GetDataResult found) {
            if (latest) {
                put(new ChildData(path, found.getStat(), found.getData()), stamp);
            }
            if (partOf != null) {
                partOf.found(path);
                if (answer.results().size() > 1
                        && answer.results().get(1) instanceof OpResult.GetChildrenResult listing) {
                    read(partOf.unread(path, listing.getChildren()), partOf);
                }
            }
        } else if (MultiAnswer.isMissing(data)) {
            if (latest) {
                remove(path);
            }
        } else if (partOf != null) {
            log.warn("Could not read {}: {}", path, KeeperException.Code.get(((OpResult.ErrorResult) data).getErr()));
            partOf.failed();
        }
        if (partOf != null) {
            loadRead(partOf);
        }
    }

    /**
     * What reading a node's data may answer, so that the reads merged with it stay within one answer: the few nodes
     * that grow with the job's items, and the others, which hold a few names or numbers.
     */
    private long dataBytes(String path) {
        return largeNodes.contains(path) ? ClientRequests.ITEMS_DATA_BYTES : ClientRequests.READ_DATA_BYTES;
    }

    /** One read of the load answered: the last one ends it, removing what it no longer found. */
    private void loadRead(CacheLoad done) {
        if (!done.answered() || done != load) {
            return;
        }
        load = null;
        if (done.hasFailed() || closed) {
            return;
        }
        for (Map.Entry<String, Entry> cached : List.copyOf(nodes.entrySet())) {
            // What an event read after the load began is newer than the load, found or not.
            if (!done.wasFound(cached.getKey()) && cached.getValue().stamp < done.startedAt()) {
                remove(cached.getKey());
            }
        }
        if (initialized.getCount() > 0) {
            initialized.countDown();
            tell(null);
        }
    }

    private void put(ChildData data, long stamp) {
        Entry before = nodes.put(data.getPath(), new Entry(data, stamp));
        if (before == null || before.data.getStat().getMzxid() != data.getStat().getMzxid()) {
            tell(data.getPath());
        }
    }

    private void remove(String path) {
        if (nodes.remove(path) != null) {
            tell(path);
        }
    }

    /** Tells the listeners in the order the changes were made: this runs under the lock that orders them. */
    private void tell(@Nullable String path) {
        if (closed) {
            return;
        }
        for (Consumer<@Nullable String> listener : listeners) {
            try {
                listenerExecutor.execute(() -> listener.accept(path));
            } catch (RejectedExecutionException stopping) {
                // The job is closing: nothing listens any more.
                return;
            }
        }
    }
}
