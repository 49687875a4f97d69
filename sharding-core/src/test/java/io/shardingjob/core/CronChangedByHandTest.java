package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistoryWrites;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A cron written by hand in ZooKeeper, which writes no entry in the job's schedule history: an instance that sees it
 * records the entry, from the time of the hand-made write, and the fires of the new cron are due. The clock is the
 * system's, as the ensemble's time of the write is the entry's.
 */
class CronChangedByHandTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final String HOURLY = "*/3600 * * * * *";

    private static final String EVERY_SECOND_CRON = "* * * * * *";

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

    private static void waitUntil(Instant time) throws InterruptedException {
        long millis = Duration.between(Instant.now(), time).toMillis();
        if (millis > 0) {
            Thread.sleep(millis + 20);
        }
    }
}
