package io.shardingjob.core.internal.registry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorListener;
import org.apache.curator.framework.imps.CuratorFrameworkBase;
import org.apache.curator.framework.listen.Listenable;
import org.apache.curator.framework.listen.ListenerManager;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;

/**
 * Starts and closes Curator caches so that a closed cache leaves nothing behind on its client.
 *
 * <p>Why: Curator 5.9.0's {@link PersistentWatcher}, under every {@link CuratorCache}, adds a {@link CuratorListener}
 * to the client when it starts and never removes it (apache/curator#1292, fixed after 5.9.0). Each job kept ten
 * such caches until its registry cache became {@link JobCache}: closing 5,000 jobs sent 50,000 watch removals, each
 * answered through 50,000 listeners, and held ZooKeeper's event thread for minutes. The run-time definitions' cache
 * ({@code JobDefinitions}) still is a {@code CuratorCache}, one per application, started and closed through here.
 *
 * <p>The listeners the caches' start added are told apart as those of a {@code PersistentWatcher} that were not known
 * before, all starts on one client taking the same lock; they are removed once the caches are closed. A Curator that
 * removes them itself makes that second removal do nothing.
 */
public final class CuratorCaches {

    private static final String WATCHER_LISTENER = PersistentWatcher.class.getName() + "$$";

    /**
     * The watchers' listeners already told apart, by client: a start looks only at the listeners not among them, so
     * that it costs one pass over the client's listeners however many caches it starts.
     */
    private static final Map<Listenable<CuratorListener>, Set<Object>> KNOWN =
            Collections.synchronizedMap(new WeakHashMap<>());

    private CuratorCaches() {}

    /** Starts the caches; what it returns closes them and removes what their starts left on the client. */
    public static Runnable start(CuratorFramework client, List<CuratorCache> caches) {
        Listenable<CuratorListener> listenable = listenable(client);
        if (!(listenable instanceof ListenerManager<?, ?> manager)) {
            caches.forEach(CuratorCache::start);
            return () -> caches.forEach(CuratorCache::close);
        }
        Set<Object> known =
                KNOWN.computeIfAbsent(listenable, any -> Collections.newSetFromMap(new IdentityHashMap<>()));
        List<CuratorListener> added = new ArrayList<>();
        synchronized (known) {
            caches.forEach(CuratorCache::start);
            manager.forEach(listener -> {
                if (!known.contains(listener) && listener.getClass().getName().startsWith(WATCHER_LISTENER)) {
                    added.add((CuratorListener) listener);
                }
            });
            known.addAll(added);
        }
        return () -> {
            caches.forEach(CuratorCache::close);
            added.forEach(listenable::removeListener);
            synchronized (known) {
                added.forEach(known::remove);
            }
        };
    }

    /** The listeners of the client's own framework: a namespaced facade refuses to give them. */
    static Listenable<CuratorListener> listenable(CuratorFramework client) {
        CuratorFramework framework = client instanceof CuratorFrameworkBase base ? base.client() : client;
        return framework.getCuratorListenable();
    }
}
