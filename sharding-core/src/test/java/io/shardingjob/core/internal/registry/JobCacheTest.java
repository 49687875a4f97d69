package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a job's cache answers, against a real ZooKeeper: every node and listing of the small state it watches, from the
 * one cache that watches it, and nothing of the ledger or of another job beside it.
 */
class JobCacheTest extends ZooKeeperTestSupport {

    private final ExecutorService listeners = Executors.newSingleThreadExecutor();

    private final JobNodes job = new JobNodes("report");

    @AfterEach
    void stopListeners() {
        listeners.shutdownNow();
    }

    @Test
    void answersForEveryWatchedSubtreeAndNodeAndForNothingElse() throws Exception {
        CuratorFramework client = newClient();
        write(client, job.instance("a"), "a");
        write(client, job.instance("b"), "b");
        write(client, job.disabledItem(3), "");
        write(client, job.leavingInstance("b"), "");
        write(client, job.follower("export"), "on=success");
        write(client, job.assignment(), "epoch=1");
        write(client, job.config(), "cron=0 0 * * * *");
        write(client, job.claim(Instant.ofEpochMilli(1_000), 0), "state=RUNNING");
        write(client, new JobNodes("reporting").instance("c"), "c");
        write(client, "/report-archive/instances/d", "d");

        JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
        cache.start(Duration.ofSeconds(10));

        assertThat(cache.children(job.instances())).containsExactly("a", "b");
        assertThat(cache.children(job.disabledItems())).containsExactly("3");
        assertThat(cache.children(job.disabledInstances())).isEmpty();
        assertThat(cache.children(job.leavingInstances())).containsExactly("b");
        assertThat(cache.children(job.followers())).containsExactly("export");
        assertThat(cache.data(job.instance("b")))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("b"));
        assertThat(cache.data(job.assignment()))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("epoch=1"));
        assertThat(cache.data(job.config()))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("cron=0 0 * * * *"));
        assertThat(cache.exists(job.follower("export"))).isTrue();

        assertThat(cache.children(job.ledger()))
                .as("the ledger is never cached")
                .isEmpty();
        assertThat(cache.exists(job.claim(Instant.ofEpochMilli(1_000), 0))).isFalse();
        assertThat(cache.children(new JobNodes("reporting").instances()))
                .as("a job whose name starts with this one's")
                .isEmpty();
        assertThat(cache.children("/report-archive/instances")).isEmpty();
        assertThat(cache.exists(job.root())).isFalse();
    }

    private static void write(CuratorFramework client, String path, String data) throws Exception {
        client.create().creatingParentsIfNeeded().forPath(path, data.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }
}
