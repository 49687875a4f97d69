package io.shardingjob.core.internal.registry;

import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.jspecify.annotations.Nullable;

/**
 * A local, watch-maintained copy of the small state of one job: its configuration, instances, leader, assignment and
 * disabled or leaving instances and items ({@link JobNodes#cachedSubtrees()}, {@link JobNodes#cachedNodes()}). Steady-state reads come from here, never
 * from a ZooKeeper round trip. The fire ledger is deliberately not cached: it grows with fires and items, and a cache
 * over it would cost every instance two reads per claim. Listeners run on the executor given at construction, never on
 * ZooKeeper's event thread, so they may block briefly without stalling other watches.
 */
public final class JobCache implements AutoCloseable {

    private final CuratorFramework client;

    private final List<CuratorCache> caches;

    /** The path each of {@link #caches} watches, at the same index: a lookup asks only the cache that holds it. */
    private final List<String> roots;

    /** Closes the started caches completely ({@link CuratorCaches}); null until started. */
    private volatile @Nullable Runnable closer;

    private final Executor listenerExecutor;

    private final CountDownLatch initialized;

    public JobCache(CuratorFramework client, JobNodes nodes, Executor listenerExecutor) {
        this.client = client;
        List<CuratorCache> all = new ArrayList<>();
        List<String> watched = new ArrayList<>();
        nodes.cachedSubtrees().forEach(path -> {
            all.add(CuratorCache.build(client, path));
            watched.add(path);
        });
        // A single node is watched alone (a persistent watch, not a recursive one): its loads read its data only.
        nodes.cachedNodes().forEach(path -> {
            all.add(CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE));
            watched.add(path);
        });
        this.caches = List.copyOf(all);
        this.roots = List.copyOf(watched);
        this.listenerExecutor = listenerExecutor;
        this.initialized = new CountDownLatch(caches.size());
        caches.forEach(cache -> cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forInitialized(initialized::countDown)
                        .build()));
    }

    /**
     * Adds a listener told the path of every created, changed or deleted node, and {@code null} once the initial load
     * is complete.
     */
    public void addListener(Consumer<@Nullable String> onChange) {
        CountDownLatch loaded = new CountDownLatch(caches.size());
        caches.forEach(cache -> cache.listenable()
                .addListener(
                        CuratorCacheListener.builder()
                                .forAll((type, oldData, data) ->
                                        onChange.accept(data != null ? data.getPath() : oldData.getPath()))
                                .forInitialized(() -> {
                                    loaded.countDown();
                                    if (loaded.getCount() == 0) {
                                        onChange.accept(null);
                                    }
                                })
                                .build(),
                        listenerExecutor));
    }

    /** Starts watching and waits until the first full load is in memory. */
    public void start(Duration timeout) {
        closer = CuratorCaches.start(client, caches);
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
        CuratorCache cache = holding(path);
        return cache == null ? Optional.empty() : cache.get(path);
    }

    /**
     * The cache whose watched path is {@code path} or an ancestor of it, or null when none watches it: the fire path
     * asks for children and nodes per item, and each cache holds only its own subtree.
     */
    private @Nullable CuratorCache holding(String path) {
        for (int index = 0; index < roots.size(); index++) {
            String root = roots.get(index);
            if (path.startsWith(root) && (path.length() == root.length() || path.charAt(root.length()) == '/')) {
                return caches.get(index);
            }
        }
        return null;
    }

    public Optional<byte[]> data(String path) {
        return node(path).map(ChildData::getData);
    }

    public boolean exists(String path) {
        return node(path).isPresent();
    }

    /** The names of the direct children of a path, sorted. */
    public List<String> children(String path) {
        String prefix = path + "/";
        CuratorCache cache = holding(path);
        if (cache == null) {
            return List.of();
        }
        return cache.stream()
                .map(ChildData::getPath)
                .filter(child -> child.startsWith(prefix) && child.indexOf('/', prefix.length()) < 0)
                .map(child -> child.substring(prefix.length()))
                .sorted()
                .toList();
    }

    @Override
    public void close() {
        Runnable started = closer;
        if (started == null) {
            caches.forEach(CuratorCache::close);
        } else {
            started.run();
        }
    }
}
