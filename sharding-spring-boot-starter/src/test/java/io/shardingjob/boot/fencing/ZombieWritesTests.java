package io.shardingjob.boot.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.testing.Sessions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A run whose process lost its session while inside the job (a zombie, as after a pause past the session) resumes
 * after the item's next owner wrote: every write the zombie then makes through {@link FencedJdbc} is refused, the
 * successor's stands, and the zombie's run is reported fenced out and not retried. Two instances on a real ZooKeeper,
 * the session ended by the server, with failover on (the successor takes the zombie's run over) and off (the
 * successor's run is the item's next fire).
 */
class ZombieWritesTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final ExecutorService items = Executors.newCachedThreadPool();
    private final List<ItemResult> results = new CopyOnWriteArrayList<>();
    private final CountDownLatch zombieInside = new CountDownLatch(1);
    private final CountDownLatch zombieResumes = new CountDownLatch(1);
    private final Map<JobCoordinator, CuratorFramework> clients = new ConcurrentHashMap<>();
    private final String namespace = TestZooKeeper.newNamespace();
    private JdbcClient jdbc;
    private FencedJdbc fenced;

    @BeforeEach
    void createTheStore() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:zombie-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        jdbc = JdbcClient.create(h2);
        jdbc.sql("CREATE TABLE settlement (region VARCHAR(32) PRIMARY KEY, settled_by VARCHAR(64), fence BIGINT)")
                .update();
        jdbc.sql("INSERT INTO settlement (region) VALUES ('east')").update();
        fenced = new FencedJdbc(h2);
    }

    @AfterEach
    void releaseTheZombieAndClose() {
        zombieResumes.countDown();
        clients.forEach((coordinator, client) -> {
            coordinator.close();
            client.close();
        });
        items.shutdownNow();
    }

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void everyWriteOfARunThatLostItsSessionIsRefusedOnceItsSuccessorWrote(boolean failover) throws Exception {
        JobConfiguration config = JobConfiguration.builder("settlement")
                .cron("0 0 0 * * *")
                .shardingTotalCount(1)
                .failover(failover)
                .retries(2)
                .build();
        // The zombie starts alone, so that it owns the item; its successor's id sorts first, so that it owns the
        // item once both are there.
        JobCoordinator zombie = start("z-zombie", config, this::settleAsZombie);
        await().atMost(PATIENCE).until(() -> zombie.localItems().equals(List.of(0)));
        Instant firstFire = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        CompletableFuture<?> zombieFire =
                CompletableFuture.runAsync(() -> zombie.fire(ExecutionSource.NORMAL, firstFire), items);
        await().atMost(PATIENCE).until(() -> zombieInside.getCount() == 0);

        JobCoordinator successor = start("a-successor", config, this::settle);
        await().atMost(PATIENCE).until(() -> successor.localItems().equals(List.of(0)));
        Sessions.expire(clients.get(zombie), TestZooKeeper.connectString());
        if (!failover) {
            // Without failover the cut run is not run again: the item's next fire is the successor's.
            await().atMost(PATIENCE)
                    .until(() -> successor.fire(ExecutionSource.NORMAL, firstFire.plusSeconds(1)).results().stream()
                            .anyMatch(ItemResult::succeeded));
        }
        await().atMost(PATIENCE).until(() -> "a-successor".equals(settledBy()));
        long successorToken = fence();

        zombieResumes.countDown();
        zombieFire.get();

        List<ItemResult> zombieRuns = results.stream()
                .filter(result -> result.context().instanceId().equals("z-zombie"))
                .toList();
        assertThat(zombieRuns)
                .as("the zombie's run, not retried")
                .singleElement()
                .satisfies(run -> {
                    assertThat(run.fencedOut()).isTrue();
                    assertThat(run.context().fencingToken()).isLessThan(successorToken);
                });
        assertThat(settledBy()).isEqualTo("a-successor");
        assertThat(fence()).isEqualTo(successorToken);
    }

    /** The zombie's code: inside the job when its session ends, and on once told to, as a paused process resumes. */
    private void settleAsZombie(ShardingContext context) {
        zombieInside.countDown();
        boolean resumed = false;
        while (!resumed) {
            try {
                resumed = zombieResumes.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException ignored) {
                // A paused process hears nothing: the interrupt that the lost session sent is ignored.
            }
        }
        settle(context);
    }

    private void settle(ShardingContext context) {
        fenced.update(
                context,
                "settlement",
                "settled_by = :instance",
                "region = :region",
                Map.of("instance", context.instanceId(), "region", "east"));
    }

    private JobCoordinator start(String id, JobConfiguration config, ItemExecutor job) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(TestZooKeeper.connectString())
                .namespace(namespace)
                .sessionTimeoutMs(1500)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 500))
                .build();
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS))
                .as("connected")
                .isTrue();
        JobCoordinator coordinator = JobCoordinator.builder(client, config)
                .instanceId(id)
                .reconcileInterval(Duration.ofMillis(500))
                .shardingWaitTimeout(Duration.ofSeconds(5))
                .job(job, items)
                .listener(results::add)
                .build();
        clients.put(coordinator, client);
        coordinator.start();
        return coordinator;
    }

    private String settledBy() {
        return jdbc.sql("SELECT settled_by FROM settlement WHERE region = 'east'")
                .query(String.class)
                .list()
                .get(0);
    }

    private long fence() {
        return jdbc.sql("SELECT fence FROM settlement WHERE region = 'east'")
                .query(Long.class)
                .single();
    }
}
