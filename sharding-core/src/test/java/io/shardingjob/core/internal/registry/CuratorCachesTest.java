package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.ListenerManager;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.junit.jupiter.api.Test;

/** Caches started and closed many times leave the client's listeners as they found them, against a real ZooKeeper. */
class CuratorCachesTest extends ZooKeeperTestSupport {

    @Test
    void cachesStartedAndClosedAgainAndAgainLeaveNoListenerOnTheClient() throws Exception {
        CuratorFramework client = newClient();
        int before = listenerCount(client);

        for (int i = 0; i < 20; i++) {
            Runnable close =
                    CuratorCaches.start(client, List.of(CuratorCache.build(client, "/definitions-" + (i % 3))));
            assertThat(listenerCount(client)).isGreaterThan(before);
            close.run();
        }

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
