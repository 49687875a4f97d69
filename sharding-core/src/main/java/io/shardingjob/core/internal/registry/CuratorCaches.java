package io.shardingjob.core.internal.registry;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
 * to the client when it starts and never removes it (apache/curator#1292, fixed after 5.9.0). Every job keeps ten
 * caches, so a service that defines and removes jobs kept every closed cache's listener, and the watcher it holds, for
 * good; and the client calls each of them for every background answer that has no callback of its own. Closing 5,000
 * jobs sent 50,000 watch removals, each answered through 50,000 listeners, and held ZooKeeper's event thread for
 * minutes, answers to the jobs still running included.
 *
 * <p>The listener a cache's start added is told apart as the one of a {@code PersistentWatcher} that was not there
 * before the start, all starts of one client taking the same lock; it is removed once the cache is closed. A Curator
 * that removes it itself makes that second removal do nothing.
 */
public final class CuratorCaches {

    private static final String WATCHER_LISTENER = PersistentWatcher.class.getName() + "$$";

    private CuratorCaches() {}

    /**
     * Starts the cache.
     *
     * @return closes the cache and removes what its start left on the client
     */
    public static Runnable start(CuratorFramework client, CuratorCache cache) {
        Listenable<CuratorListener> listenable = listenable(client);
        if (!(listenable instanceof ListenerManager<?, ?> manager)) {
            cache.start();
            return cache::close;
        }
        List<CuratorListener> added;
        synchronized (listenable) {
            Map<Object, Boolean> before = watcherListeners(manager);
            cache.start();
            added = new ArrayList<>();
            watcherListeners(manager).keySet().forEach(listener -> {
                if (!before.containsKey(listener)) {
                    added.add((CuratorListener) listener);
                }
            });
        }
        return () -> {
            cache.close();
            added.forEach(listenable::removeListener);
        };
    }

    /** The listeners of the client's own framework: a namespaced facade refuses to give them. */
    static Listenable<CuratorListener> listenable(CuratorFramework client) {
        CuratorFramework framework = client instanceof CuratorFrameworkBase base ? base.client() : client;
        return framework.getCuratorListenable();
    }

    private static Map<Object, Boolean> watcherListeners(ListenerManager<?, ?> manager) {
        Map<Object, Boolean> listeners = new IdentityHashMap<>();
        manager.forEach(listener -> {
            if (listener.getClass().getName().startsWith(WATCHER_LISTENER)) {
                listeners.put(listener, Boolean.TRUE);
            }
        });
        return listeners;
    }
}
