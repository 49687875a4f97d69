package io.shardingjob.core.registry;

import java.time.Duration;
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

/**
 * A local, watch-maintained copy of every node of one job. Steady-state reads (who leads, the assignment, running
 * marks, disabled items) come from here, never from a ZooKeeper round trip. Listeners run on the executor given at
 * construction, never on ZooKeeper's event thread, so they may block briefly without stalling other watches.
 */
public final class JobCache implements AutoCloseable {

    private final CuratorCache cache;

    private final Executor listenerExecutor;

    private final CountDownLatch initialized = new CountDownLatch(1);

    public JobCache(CuratorFramework client, JobNodes nodes, Executor listenerExecutor) {
        this.cache = CuratorCache.build(client, nodes.root());
        this.listenerExecutor = listenerExecutor;
        cache.listenable()
                .addListener(CuratorCacheListener.builder()
                        .forInitialized(initialized::countDown)
                        .build());
    }

    /**
     * Adds a listener told the path of every created, changed or deleted node, and {@code null} once the initial load
     * is complete.
     */
    public void addListener(Consumer<String> onChange) {
        cache.listenable()
                .addListener(
                        CuratorCacheListener.builder()
                                .forAll((type, oldData, data) ->
                                        onChange.accept(data != null ? data.getPath() : oldData.getPath()))
                                .forInitialized(() -> onChange.accept(null))
                                .build(),
                        listenerExecutor);
    }

    /** Starts watching and waits until the first full load is in memory. */
    public void start(Duration timeout) {
        cache.start();
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
        return cache.get(path);
    }

    public Optional<byte[]> data(String path) {
        return cache.get(path).map(ChildData::getData);
    }

    public boolean exists(String path) {
        return cache.get(path).isPresent();
    }

    /** The names of the direct children of a path, sorted. */
    public List<String> children(String path) {
        String prefix = path + "/";
        return cache.stream()
                .map(ChildData::getPath)
                .filter(child -> child.startsWith(prefix) && child.indexOf('/', prefix.length()) < 0)
                .map(child -> child.substring(prefix.length()))
                .sorted()
                .toList();
    }

    @Override
    public void close() {
        cache.close();
    }
}
