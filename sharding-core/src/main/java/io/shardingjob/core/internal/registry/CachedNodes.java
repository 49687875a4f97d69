package io.shardingjob.core.internal.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.jspecify.annotations.Nullable;

/**
 * The nodes a {@link JobCache} holds, and its listeners, told of each change in the order the changes were made.
 * Read without a lock; changed only under the cache's lock, the one that orders its events and answers.
 */
final class CachedNodes {

    /** A cached node, and the stamp it was last read or removed at ({@link ReadStamps}). */
    private record Entry(ChildData data, long stamp) {}

    /** Every node cached, by path relative to the namespace: sorted, so that a node's children are one range. */
    private final NavigableMap<String, Entry> nodes = new ConcurrentSkipListMap<>();

    private final List<Consumer<@Nullable String>> listeners = new CopyOnWriteArrayList<>();
    private final Executor listenerExecutor;
    private volatile boolean closed;

    CachedNodes(Executor listenerExecutor) {
        this.listenerExecutor = listenerExecutor;
    }

    void addListener(Consumer<@Nullable String> onChange) {
        listeners.add(onChange);
    }

    Optional<ChildData> node(String path) {
        Entry entry = nodes.get(path);
        return entry == null ? Optional.empty() : Optional.of(entry.data);
    }

    boolean exists(String path) {
        return nodes.containsKey(path);
    }

    List<String> children(String path) {
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

    /** The node as read at the stamp; the listeners are told when it is new or changed. */
    void put(ChildData data, long stamp) {
        Entry before = nodes.put(data.getPath(), new Entry(data, stamp));
        if (before == null || before.data.getStat().getMzxid() != data.getStat().getMzxid()) {
            tell(data.getPath());
        }
    }

    void remove(String path) {
        if (nodes.remove(path) != null) {
            tell(path);
        }
    }

    /** Removes what a whole load no longer found: what an event read after the load began is newer, found or not. */
    void removeUnfound(CacheLoad done) {
        for (Map.Entry<String, Entry> cached : List.copyOf(nodes.entrySet())) {
            if (!done.wasFound(cached.getKey()) && cached.getValue().stamp < done.startedAt()) {
                remove(cached.getKey());
            }
        }
    }

    /** Tells the listeners in the order the changes were made: this runs under the lock that orders them. */
    void tell(@Nullable String path) {
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

    void close() {
        closed = true;
    }
}
