package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.ListenerManager;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Caches started and closed many times leave the client's listeners as they found them, against a real ZooKeeper. */
class CuratorCachesTest extends ZooKeeperTestSupport {

    private final ExecutorService listeners = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopListeners() {
        listeners.shutdownNow();
    }

    @Test
    void jobCachesStartedAndClosedAgainAndAgainLeaveNoListenerOnTheClient() throws Exception {
        CuratorFramework client = newClient();
        int before = listenerCount(client);

        for (int i = 0; i < 20; i++) {
            JobCache cache = new JobCache(client, new JobNodes("job-" + (i % 3)), listeners);
            cache.start(Duration.ofSeconds(10));
            assertThat(listenerCount(client)).isGreaterThan(before);
            cache.close();
        }

        assertThat(listenerCount(client)).isEqualTo(before);
    }

    @Test
    void listenersDetachedAheadOfClosingManyCachesAreGoneAndClosingThemThenLeavesNone() throws Exception {
        CuratorFramework client = newClient();
        int before = listenerCount(client);
        List<JobCache> open = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            JobCache cache = new JobCache(client, new JobNodes("job-" + i), listeners);
            cache.start(Duration.ofSeconds(10));
            open.add(cache);
        }

        CuratorCaches.detachAll(client);

        assertThat(listenerCount(client)).isEqualTo(before);
        open.forEach(JobCache::close);
        assertThat(listenerCount(client)).isEqualTo(before);
        JobCache again = new JobCache(client, new JobNodes("job-0"), listeners);
        again.start(Duration.ofSeconds(10));
        again.close();
        assertThat(listenerCount(client)).isEqualTo(before);
    }

    @Test
    void closingOnlyTheCuratorCacheStillLeavesItsListenerBehind() throws Exception {
        // Curator 5.9.0's leak (apache/curator#1292) that CuratorCaches mends: once a Curator release fixes it, this
        // fails, and CuratorCaches can go.
        CuratorFramework client = newClient();
        int before = listenerCount(client);

        CuratorCache cache = CuratorCache.build(client, "/plain");
        cache.start();
        cache.close();

        assertThat(listenerCount(client)).isEqualTo(before + 1);
    }

    private static int listenerCount(CuratorFramework client) {
        return ((ListenerManager<?, ?>) CuratorCaches.listenable(client)).size();
    }
}
