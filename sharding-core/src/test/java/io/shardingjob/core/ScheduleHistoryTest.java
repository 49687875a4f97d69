package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistoryWrites;
import io.shardingjob.core.internal.ledger.AssignmentGuard;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireNodes;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * Misfires count only the fires that were due: the job's schedule history, written with every disable, enable, change
 * of cron or count and definition, tells the leader which missed fires to record and the owners' audits which to make
 * up. Time is a settable clock; ZooKeeper is real.
 */
class ScheduleHistoryTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    /** The crons {@code * * * * * *} and {@code *}{@code /k * * * * *} as the starter reads them. */
    private static final FireSchedule CRON = (configuration, after) -> {
        String seconds = configuration.cron().split(" ")[0];
        int period = seconds.equals("*") ? 1 : Integer.parseInt(seconds.substring(2));
        return Instant.ofEpochSecond(Math.floorDiv(after.getEpochSecond(), period) * period + period);
    };

    /** A time a while ago on a multiple of ten seconds: the fires of every cron used here line up on it. */
    private final Instant t0 = Instant.ofEpochSecond(Math.floorDiv(Instant.now().getEpochSecond(), 10) * 10 - 60);

    private final SettableClock clock = new SettableClock(t0);

    @Test
    void disablingAJobForSeveralPeriodsThenEnablingItMakesUpNothingFromTheWindow() throws Exception {
        JobConfiguration job = job("paused", "* * * * * *", 4);
        Instance only = startOnClock(job);
        LedgerParts ledger = LedgerParts.of(only.client(), new JobNodes("paused"));
        ranEarlier(only, ledger, 0, 4);

        // Fires at 1 and 2 are missed while the job is enabled; disabled from 2.5 to 7.5.
        clock.advance(Duration.ofMillis(2_500));
        assertThat(only.coordinator().updateDisabled(true)).isTrue();
        // What an instance leaves in the window: a fire node created ahead, and a fire recorded as missed.
        ledger.claims()
                .commitAsync(List.of(), Instant.EPOCH, List.of(), new FireNodes(false, at(3)), AssignmentGuard.NONE)
                .join();
        ledger.claims().recordDueAsync(at(5)).join();
        clock.advance(Duration.ofSeconds(5));
        assertThat(only.coordinator().updateDisabled(false)).isTrue();
        await().atMost(WITHIN).until(() -> !only.coordinator().configuration().disabled());
        clock.advance(Duration.ofMillis(500));
        // The misses before the window are made up once the keeper recorded them (the window's fire at 5 settles as
        // not due, so they come before a settled fire), by the audit the keeper hands them to: before the next fire,
        // which would otherwise find its items still running those make-ups and make itself up after them.
        await().atMost(WITHIN)
                .until(() -> results(result -> result.source() == ExecutionSource.MISFIRE)
                                .size()
                        == 4);
        // A run's result is told before its end is written, and its item is free only once the write is answered: the
        // fire at 8 would otherwise meet the items still busy with the make-ups and be made up itself. The ledger read
        // goes through the same client, so it answers after the end writes and the releases they lead to.
        await().atMost(WITHIN)
                .until(() -> ledger.reads().read(List.of(at(2))).get(0).claims().values().stream()
                        .allMatch(claim -> claim.state() == ClaimState.DONE));
        only.coordinator().fire(ExecutionSource.NORMAL, at(8));
        clock.advance(Duration.ofSeconds(4));

        // The keeper passes the whole window; the misses before it run once, as the latest of them.
        await().atMost(WITHIN)
                .until(() -> !ledger.reads().overview().watermark().isBefore(at(8)));
        assertThat(madeUpBefore(at(8)))
                .extracting(ItemResult::fireTime)
                .containsOnly(at(2))
                .hasSize(4);
        assertThat(results(result ->
                        result.fireTime().isAfter(at(2)) && result.fireTime().isBefore(at(8))))
                .isEmpty();
        // The recorded fire in the window is settled as never due; the node created ahead is passed over.
        assertThat(ledger.reads().read(List.of(at(5))).get(0).claims().values())
                .extracting(Claim::state)
                .containsOnly(ClaimState.SKIPPED)
                .hasSize(4);
        assertThat(ledger.reads().read(List.of(at(3))).get(0).claims()).isEmpty();
        // The history holds what the operator did, each from its time.
        byte[] history = only.client().getData().forPath(new JobNodes("paused").history());
        assertThat(ScheduleHistory.decode(history).entries())
                .extracting(
                        entry -> entry.from().equals(Instant.EPOCH) ? "start" : entry.from() + " " + entry.enabled())
                .containsExactly("start", at(0).plusMillis(2_500) + " false", at(0).plusMillis(7_500) + " true");
    }

    @Test
    void anItemsFiresWhileItWasDisabledAreNeverMadeUpOnceItIsEnabled() throws Exception {
        JobConfiguration job = job("itemPaused", "* * * * * *", 2);
        Instance only = startOnClock(job);
        LedgerParts ledger = LedgerParts.of(only.client(), new JobNodes("itemPaused"));
        ranEarlier(only, ledger, 0, 2);

        // Item 1 is disabled from 0.5 to 2.5; the fires at 1 and 2 are missed (every instance was busy, say).
        clock.advance(Duration.ofMillis(500));
        only.coordinator().disableItem(1);
        clock.advance(Duration.ofSeconds(2));
        only.coordinator().enableItem(1);
        await().atMost(WITHIN).until(() -> only.coordinator().disabledItems().isEmpty());
        clock.advance(Duration.ofMillis(500));
        only.coordinator().fire(ExecutionSource.NORMAL, at(3));
        clock.advance(Duration.ofSeconds(4));

        await().atMost(WITHIN)
                .until(() -> !ledger.reads().overview().watermark().isBefore(at(3)));
        // Item 0 makes up its misses once; item 1 had none: its fires while disabled were never due.
        assertThat(madeUpBefore(at(3))).singleElement().satisfies(result -> {
            assertThat(result.context().item()).isZero();
            assertThat(result.fireTime()).isEqualTo(at(2));
        });
        assertThat(ledger.reads().read(List.of(at(1), at(2))))
                .allSatisfy(fire -> assertThat(fire.claims().get(1).state()).isEqualTo(ClaimState.SKIPPED));
        byte[] history = only.client().getData().forPath(new JobNodes("itemPaused").history());
        assertThat(ScheduleHistory.decode(history).entries())
                .extracting(entry -> entry.disabledItems().contains(1))
                .containsExactly(false, true, false);
    }

    /**
     * A fire that came due is due, whatever an operator does after it: a run of it still queued when the job is disabled
     * does not start then, nor is it recorded as not run; it runs once the job is enabled again.
     */
    @Test
    void aQueuedRunOfAFireThatCameDueBeforeTheJobWasDisabledRunsOnceTheJobIsEnabledAgain() throws Exception {
        JobConfiguration job = job("queued", "* * * * * *", 2);
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        ExecutorService oneThread = Executors.newSingleThreadExecutor();
        try {
            ItemExecutor firstHolds = context -> {
                // The first item to start holds the only thread: the other waits in its queue.
                if (started.getAndIncrement() == 0) {
                    firstStarted.countDown();
                    release.await();
                }
            };
            Instance only = start(
                    "only",
                    job,
                    firstHolds,
                    builder -> builder.clock(clock).schedule(CRON).job(firstHolds, oneThread));
            await().atMost(WITHIN)
                    .until(() ->
                            only.coordinator().assignment().itemsByInstance().containsKey("only"));
            LedgerParts ledger = LedgerParts.of(only.client(), new JobNodes("queued"));
            clock.advance(Duration.ofSeconds(1));
            CompletableFuture<?> fire =
                    CompletableFuture.runAsync(() -> only.coordinator().fire(ExecutionSource.NORMAL, at(1)));
            assertThat(firstStarted.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();

            clock.advance(Duration.ofMillis(500));
            assertThat(only.coordinator().updateDisabled(true)).isTrue();
            await().atMost(WITHIN)
                    .until(() -> only.coordinator().configuration().disabled());
            release.countDown();
            fire.get(WITHIN.toSeconds(), TimeUnit.SECONDS);

            // The queued run left its queue under the disabled job: handed on, neither run nor skipped.
            assertThat(ledger.reads().read(List.of(at(1))).get(0).claims().values())
                    .extracting(Claim::state)
                    .containsExactlyInAnyOrder(ClaimState.DONE, ClaimState.HANDED_ON);
            assertThat(results(result -> result.fireTime().equals(at(1)))).hasSize(1);

            clock.advance(Duration.ofSeconds(1));
            assertThat(only.coordinator().updateDisabled(false)).isTrue();
            await().atMost(WITHIN)
                    .untilAsserted(() -> assertThat(
                                    results(result -> result.fireTime().equals(at(1))))
                            .hasSize(2)
                            .extracting(result -> result.context().item())
                            .containsExactlyInAnyOrder(0, 1));
            assertThat(results(result -> result.fireTime().equals(at(1))))
                    .extracting(ItemResult::source)
                    .containsOnly(ExecutionSource.NORMAL);
        } finally {
            release.countDown();
            oneThread.shutdownNow();
        }
    }

    @Test
    void changingTheCronToAFasterOneMakesUpAtMostOneRunPerItemAndNoneForFiresBeforeTheChange() throws Exception {
        JobConfiguration job = job("sped", "*/5 * * * * *", 4);
        Instance only = startOnClock(job);
        LedgerParts ledger = LedgerParts.of(only.client(), new JobNodes("sped"));
        ranEarlier(only, ledger, 0, 4);
        clock.advance(Duration.ofSeconds(5));
        only.coordinator().fire(ExecutionSource.NORMAL, at(5));

        // The cron becomes every second at 7.5.
        clock.advance(Duration.ofMillis(2_500));
        JobDefinitions definitions =
                closeAfterTest(new JobDefinitions(only.client(), NO_LISTENER, FireSchedule.NONE, clock));
        definitions.update(
                "sped", stored -> stored.toBuilder().cron("* * * * * *").build());
        await().atMost(WITHIN)
                .until(() -> only.coordinator().configuration().cron().equals("* * * * * *"));
        // The trigger picks the new cron up from 10 on: the fires at 8 and 9 are missed too.
        clock.advance(Duration.ofMillis(2_500));
        for (int second = 10; second <= 12; second++) {
            only.coordinator().fire(ExecutionSource.NORMAL, at(second));
        }
        clock.advance(Duration.ofSeconds(4));

        await().atMost(WITHIN)
                .until(() -> !ledger.reads().overview().watermark().isBefore(at(12)));
        // The missed due fires 8 and 9 are one run of misses: one make-up per item, as the latest.
        assertThat(madeUpBefore(at(12)))
                .extracting(ItemResult::fireTime)
                .containsOnly(at(9))
                .hasSize(4);
        assertThat(ledger.reads().read(List.of(at(8))))
                .allSatisfy(fire -> assertThat(fire.claims().values())
                        .extracting(Claim::state)
                        .containsOnly(ClaimState.COALESCED)
                        .hasSize(4));
        byte[] history = only.client().getData().forPath(new JobNodes("sped").history());
        assertThat(ScheduleHistory.decode(history).entries())
                .extracting(ScheduleHistory.Entry::cron)
                .containsExactly("*/5 * * * * *", "* * * * * *");
        // The new cron's fires before the change were never due: nothing recorded for them.
        assertThat(ledger.reads().overview().fires()).doesNotContain(at(1), at(2), at(3), at(4), at(6), at(7));
    }

    @Test
    void loweringTheCountSettlesTheFiresInBetween() throws Exception {
        JobConfiguration job = job("shrunk", "* * * * * *", 8);
        Instance a = startOnClock(job, "a");
        Instance b = startOnClock(job, "b");
        await().atMost(WITHIN).until(() -> settledAt(8, List.of(a, b)));
        LedgerParts ledger = LedgerParts.of(a.client(), new JobNodes("shrunk"));
        a.coordinator().fire(ExecutionSource.NORMAL, at(0));
        b.coordinator().fire(ExecutionSource.NORMAL, at(0));
        // At 1 only a fires; before b's items of it are late, the count goes down to 4.
        a.coordinator().fire(ExecutionSource.NORMAL, at(1));
        clock.advance(Duration.ofMillis(1_500));
        a.coordinator().updateShardingTotalCount(4);
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(a, b)));
        clock.advance(Duration.ofMillis(500));
        a.coordinator().fire(ExecutionSource.NORMAL, at(2));
        b.coordinator().fire(ExecutionSource.NORMAL, at(2));
        clock.advance(Duration.ofSeconds(4));

        await().atMost(WITHIN)
                .until(() -> !ledger.reads().overview().watermark().isBefore(at(2)));
        List<Integer> run = results(result -> result.fireTime().equals(at(1))).stream()
                .map(result -> result.context().item())
                .toList();
        assertThat(run).allMatch(item -> item < 4).doesNotHaveDuplicates();
        assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                .allMatch(result -> result.context().item() < 4);
    }

    @Test
    void aJobDefinedAgainNeverReadsNorMakesUpTheFiresOfTheJobItReplaces() throws Exception {
        JobDefinitions definitions =
                closeAfterTest(new JobDefinitions(newClient(), NO_LISTENER, FireSchedule.NONE, clock));
        clock.advance(Duration.ofMillis(5_500));
        definitions.define(job("reborn", "* * * * * *", 2), "handler");
        CuratorFramework client = newClient();
        client.create().creatingParentsIfNeeded().forPath(new JobNodes("reborn").ledger());
        LedgerParts ledger = LedgerParts.of(client, new JobNodes("reborn"));
        // An instance of the job it replaces, still stopping, left a fire with a claim open and a fire nobody claimed.
        ledger.claims()
                .claimAsync(
                        at(2), List.of(Claim.first(0, at(2), "old", 7L, ExecutionSource.NORMAL, 1, 2, clock.instant())))
                .join();
        ledger.claims().recordDueAsync(at(3)).join();

        Instance only = startOnClock(job("reborn", "* * * * * *", 2), "new");
        clock.advance(Duration.ofMillis(500));
        only.coordinator().fire(ExecutionSource.NORMAL, at(6));
        clock.advance(Duration.ofSeconds(4));

        await().atMost(WITHIN)
                .until(() -> !ledger.reads().overview().watermark().isBefore(at(6)));
        assertThat(results).extracting(ItemResult::fireTime).containsOnly(at(6));
        assertThat(ledger.reads().read(List.of(at(3))).get(0).claims()).isEmpty();
    }

    @Test
    void aJobDefinedAtRunTimeMakesUpItsFirstFiresThatCameDueBeforeAnyInstanceStartedIt() throws Exception {
        JobDefinitions definitions =
                closeAfterTest(new JobDefinitions(newClient(), NO_LISTENER, FireSchedule.NONE, clock));
        clock.advance(Duration.ofMillis(5_500));
        definitions.define(job("newborn", "* * * * * *", 2), "handler");
        // Its fires at 6 and 7 come due before any instance runs it.
        clock.advance(Duration.ofMillis(2_000));

        Instance only = startOnClock(job("newborn", "* * * * * *", 2), "first");
        clock.advance(Duration.ofMillis(500));
        only.coordinator().fire(ExecutionSource.NORMAL, at(8));
        clock.advance(Duration.ofSeconds(4));

        // The keeper records them missed once a later fire settled; under "once" they run once, as the latest.
        LedgerParts ledger = LedgerParts.of(only.client(), new JobNodes("newborn"));
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(madeUpBefore(at(8)))
                        .extracting(ItemResult::fireTime)
                        .containsOnly(at(7))
                        .hasSize(2));
        assertThat(ledger.reads().read(List.of(at(6))).get(0).claims().values())
                .extracting(Claim::state)
                .containsOnly(ClaimState.COALESCED)
                .hasSize(2);
        assertThat(results(result -> result.fireTime().isBefore(at(6)))).isEmpty();
    }

    @Test
    void anOperatorsChangeKeepsTheHistoryAHorizonLongerThanTheDefaultNeeds() throws Exception {
        CuratorFramework client = newClient();
        JobDefinitions definitions = closeAfterTest(new JobDefinitions(client, NO_LISTENER, FireSchedule.NONE, clock));
        definitions.define(job("hourly", "*/5 * * * * *", 2), "handler");
        clock.advance(Duration.ofMinutes(5));
        definitions.update(
                "hourly", job -> job.toBuilder().cron("*/2 * * * * *").build());
        // Past the default horizon of ten minutes, well within an hour's.
        clock.advance(Duration.ofMinutes(20));
        definitions.update("hourly", job -> job.toBuilder().cron("* * * * * *").build());

        ScheduleHistory history =
                ScheduleHistoryWrites.read(client, new JobNodes("hourly")).history();
        assertThat(history.entries())
                .as("the operator's change does not know the job's horizon: it drops nothing a longer one needs")
                .extracting(ScheduleHistory.Entry::cron)
                .containsExactly("*/5 * * * * *", "*/2 * * * * *", "* * * * * *");
        assertThat(history.entries().get(0).defined()).isTrue();
    }

    /** A fire that ran every item here, recorded as its trigger would have (with no claims made ahead of the next). */
    private void ranEarlier(Instance instance, LedgerParts ledger, int second, int items) throws Exception {
        List<Claim> done = new java.util.ArrayList<>();
        for (int item = 0; item < items; item++) {
            done.add(claimOf(instance, item, at(second), items));
        }
        ledger.claims().claimAsync(at(second), done).join();
    }

    /**
     * The make-ups of the fires before the last one a test fires. The clock then moves on past a few more fires that
     * nobody fires: those are missed too, and their make-ups may run before the test looks; they are not its subject.
     */
    private List<ItemResult> madeUpBefore(Instant lastFired) {
        return results(result ->
                result.source() == ExecutionSource.MISFIRE && result.fireTime().isBefore(lastFired));
    }

    private Instance startOnClock(JobConfiguration job) throws InterruptedException {
        return startOnClock(job, "only");
    }

    private Instance startOnClock(JobConfiguration job, String id) throws InterruptedException {
        Instance instance =
                start(id, job, context -> {}, builder -> builder.clock(clock).schedule(CRON));
        await().atMost(WITHIN)
                .until(() ->
                        instance.coordinator().assignment().itemsByInstance().containsKey(id));
        return instance;
    }

    private static JobConfiguration job(String name, String cron, int items) {
        return JobConfiguration.builder(name)
                .cron(cron)
                .shardingTotalCount(items)
                .build();
    }

    private Claim claimOf(Instance instance, int item, Instant fireTime, int total) throws Exception {
        return claimOf(
                instance.coordinator().instanceId(),
                instance.client().getZookeeperClient().getZooKeeper().getSessionId(),
                item,
                fireTime,
                total);
    }

    private Claim claimOf(String instanceId, long session, int item, Instant fireTime, int total) {
        return Claim.first(item, fireTime, instanceId, session, ExecutionSource.NORMAL, 1, total, clock.instant())
                .with(ClaimState.DONE, clock.instant());
    }

    private Instant at(int second) {
        return t0.plusSeconds(second);
    }

    private static final JobDefinitions.Listener NO_LISTENER = new JobDefinitions.Listener() {
        @Override
        public void defined(JobDefinitions.Definition definition) {}

        @Override
        public void removed(String jobName) {}
    };
}
