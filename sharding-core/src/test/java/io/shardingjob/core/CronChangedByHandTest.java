package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistoryWrites;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;

/**
 * A cron written by hand in ZooKeeper, which writes no entry in the job's schedule history: an instance that sees it
 * records the entry, from the time of the hand-made write, and the fires of the new cron are due, also one an instance
 * judged before the entry reached it. The clock is the system's, as the ensemble's time of the write is the entry's.
 */
class CronChangedByHandTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final String HOURLY = "*/3600 * * * * *";

    private static final String EVERY_SECOND_CRON = "* * * * * *";

    private static final String OPERATOR = "operator:secret";

    /** The crons {@code * * * * * *} and {@code *}{@code /k * * * * *} as the starter reads them. */
    private static final FireSchedule CRON = (configuration, after) -> {
        String seconds = configuration.cron().split(" ")[0];
        int period = seconds.equals("*") ? 1 : Integer.parseInt(seconds.substring(2));
        return Instant.ofEpochSecond(Math.floorDiv(after.getEpochSecond(), period) * period + period);
    };

    @Test
    void aCronWrittenByHandWhileAnInstanceRunsGetsItsHistoryEntryAndItsFiresRun() throws Exception {
        Instance only = startWithCron("only", "edited");

        Instant written = writeCronByHand("edited", EVERY_SECOND_CRON);

        await().atMost(WITHIN)
                .until(() -> latestEntry(only.client(), "edited").cron().equals(EVERY_SECOND_CRON));
        assertThat(latestEntry(only.client(), "edited").from()).isEqualTo(written);
        Instant fireTime = nextWholeSecondAfter(Instant.now());
        waitUntil(fireTime);
        only.coordinator().fire(ExecutionSource.NORMAL, fireTime);
        await().atMost(WITHIN)
                .untilAsserted(
                        () -> assertThat(results(result -> result.fireTime().equals(fireTime)))
                                .extracting(ItemResult::source)
                                .containsExactly(ExecutionSource.NORMAL, ExecutionSource.NORMAL));
    }

    @Test
    void aCronWrittenByHandWhileNoInstanceRanCountsFromTheWriteSoItsFiresSinceThenAreDue() throws Exception {
        startWithCron("first", "resumed").coordinator().close();
        Instant written = writeCronByHand("resumed", EVERY_SECOND_CRON);
        // A fire of the new cron comes while no instance runs; the next one starts a while later.
        Instant whileDown = nextWholeSecondAfter(written);
        waitUntil(whileDown.plusSeconds(1));

        Instance next = startWithCron("next", "resumed");

        assertThat(latestEntry(next.client(), "resumed").cron()).isEqualTo(EVERY_SECOND_CRON);
        assertThat(latestEntry(next.client(), "resumed").from())
                .as("the time of the write by hand, not of the start that recorded it")
                .isEqualTo(written);
        // Its trigger, late, fires it now: due, so it runs rather than being recorded as not due.
        next.coordinator().fire(ExecutionSource.NORMAL, whileDown);
        await().atMost(WITHIN)
                .untilAsserted(
                        () -> assertThat(results(result -> result.fireTime().equals(whileDown)))
                                .hasSize(2));
    }

    @Test
    void aFireOfACronWrittenByHandJudgedBeforeItsHistoryEntryLandsRunsOnceTheEntryLands() throws Exception {
        Instance first = startWithCron("first", "held");
        HeldBack held = fireWithTheCatchUpRefused(first, "held");
        Instant written = held.written();
        Instant fireTime = held.fireTime();

        // Another instance's catch-up writes the entry, dated from the write by hand.
        held.allowWrites();
        Instance second = startWithCron("second", "held");
        assertThat(latestEntry(second.client(), "held").from()).isEqualTo(written);

        LedgerParts ledger = LedgerParts.of(first.client(), new JobNodes("held"));
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(ledger.reads()
                                .read(List.of(fireTime))
                                .get(0)
                                .claims()
                                .values())
                        .extracting(Claim::state)
                        .containsExactly(ClaimState.DONE, ClaimState.DONE));
        assertThat(results(result -> result.fireTime().equals(fireTime))).hasSize(2);
    }

    @Test
    void aCatchUpWriteThatFailedIsTriedAgainByTheJobsPeriodicCheckWithoutAnotherChangeOrInstance() throws Exception {
        Instance only = startWithCron("only", "refused");
        HeldBack held = fireWithTheCatchUpRefused(only, "refused");
        Instant written = held.written();
        Instant fireTime = held.fireTime();

        // Writes allowed again, and nothing else changes: the periodic check writes the entry owed.
        held.allowWrites();
        await().atMost(WITHIN)
                .untilAsserted(() ->
                        assertThat(latestEntry(only.client(), "refused").cron()).isEqualTo(EVERY_SECOND_CRON));
        assertThat(latestEntry(only.client(), "refused").from()).isEqualTo(written);
        await().atMost(WITHIN)
                .untilAsserted(
                        () -> assertThat(results(result -> result.fireTime().equals(fireTime)))
                                .hasSize(2));
    }

    /**
     * Writes the cron by hand while the history's writes are refused (every instance may read it, only the operator
     * write it), and fires the instance on a fire only the new cron has: decided on the history without the new cron's
     * entry, nothing of it runs yet.
     */
    private HeldBack fireWithTheCatchUpRefused(Instance instance, String jobName) throws Exception {
        CuratorFramework operator = operatorClient();
        String history = new JobNodes(jobName).history();
        operator.setACL().withACL(historyReadOnlyButForTheOperator()).forPath(history);

        Instant written = writeCronByHand(jobName, EVERY_SECOND_CRON);
        await().atMost(WITHIN)
                .until(() -> instance.coordinator().configuration().cron().equals(EVERY_SECOND_CRON));
        Instant fireTime = nextFireOfTheNewCronOnlyAfter(written);
        await().atMost(WITHIN).until(() -> Instant.now().isAfter(fireTime));
        instance.coordinator().fire(ExecutionSource.NORMAL, fireTime);
        assertThat(results(result -> result.fireTime().equals(fireTime))).isEmpty();
        assertThat(latestEntry(instance.client(), jobName).cron()).isEqualTo(HOURLY);
        return new HeldBack(written, fireTime, operator, history);
    }

    /** A fire of a cron written by hand whose history entry is held back, and how to let it land. */
    private record HeldBack(Instant written, Instant fireTime, CuratorFramework operator, String history) {

        void allowWrites() throws Exception {
            operator.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(history);
        }
    }

    /** An instance of the job, declared with an hourly cron, once it holds its items. */
    private Instance startWithCron(String id, String jobName) throws InterruptedException {
        JobConfiguration job = JobConfiguration.builder(jobName)
                .cron(HOURLY)
                .shardingTotalCount(2)
                .build();
        Instance instance = start(id, job, context -> {}, builder -> builder.schedule(CRON));
        await().atMost(WITHIN)
                .until(() ->
                        instance.coordinator().assignment().itemsByInstance().containsKey(id));
        return instance;
    }

    /** A client of an operator who authenticates, so that it can write what others may only read. */
    private CuratorFramework operatorClient() throws Exception {
        CuratorFramework operator = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace(NAMESPACE)
                .authorization("digest", OPERATOR.getBytes(StandardCharsets.UTF_8))
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 500))
                .build();
        operator.start();
        closeAfterTest(operator);
        operator.blockUntilConnected();
        return operator;
    }

    private static List<ACL> historyReadOnlyButForTheOperator() throws Exception {
        return List.of(
                new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE),
                new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest(OPERATOR))));
    }

    /** Writes the stored configuration with another cron, as an operator with a ZooKeeper client does. */
    private Instant writeCronByHand(String jobName, String cron) throws Exception {
        CuratorFramework operator = newClient();
        String path = new JobNodes(jobName).config();
        JobConfiguration stored =
                JobConfigurationCodec.decode(jobName, operator.getData().forPath(path));
        Stat written = operator.setData()
                .forPath(
                        path,
                        JobConfigurationCodec.encode(
                                stored.toBuilder().cron(cron).build()));
        return Instant.ofEpochMilli(written.getMtime());
    }

    private static ScheduleHistory.Entry latestEntry(CuratorFramework client, String jobName) throws Exception {
        return ScheduleHistoryWrites.read(client, new JobNodes(jobName))
                .history()
                .latest();
    }

    private static Instant nextWholeSecondAfter(Instant time) {
        return Instant.ofEpochSecond(time.getEpochSecond() + 1);
    }

    /** A fire of the new cron, every second, that the old one, hourly, does not have. */
    private static Instant nextFireOfTheNewCronOnlyAfter(Instant time) {
        Instant next = nextWholeSecondAfter(time);
        return next.getEpochSecond() % 3600 == 0 ? next.plusSeconds(1) : next;
    }

    private static void waitUntil(Instant time) throws InterruptedException {
        long millis = Duration.between(Instant.now(), time).toMillis();
        if (millis > 0) {
            Thread.sleep(millis + 20);
        }
    }
}
