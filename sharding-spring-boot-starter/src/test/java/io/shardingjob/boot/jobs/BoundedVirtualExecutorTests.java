package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** Virtual threads exist from Java 21: on the Java 17 build (CI's) these tests are skipped. */
@EnabledForJreRange(min = JRE.JAVA_21)
class BoundedVirtualExecutorTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    @Test
    void runsAtMostTheLimitAtOnceAndQueuesTheRest() throws Exception {
        try (BoundedVirtualExecutor executor = new BoundedVirtualExecutor("test-", 3)) {
            CountDownLatch release = new CountDownLatch(1);
            Runs runs = new Runs();
            for (int task = 0; task < 20; task++) {
                executor.execute(runs.task(task, release));
            }

            await().atMost(PATIENCE).until(() -> runs.started.size() == 3);
            assertThat(executor.running()).isEqualTo(3);
            assertThat(executor.waiting()).isEqualTo(17);
            release.countDown();

            await().atMost(PATIENCE).until(() -> runs.ended.get() == 20);
            assertThat(runs.mostAtOnce.get()).isEqualTo(3);
            assertThat(runs.started).hasSize(20).doesNotHaveDuplicates();
            await().atMost(PATIENCE).until(() -> executor.running() == 0);
        }
    }

    @Test
    void handsRunsOnWithoutWaitingWhileEverySlotIsTakenAndStartsThemInTheOrderTheyCame() throws Exception {
        try (BoundedVirtualExecutor executor = new BoundedVirtualExecutor("test-", 1)) {
            CountDownLatch release = new CountDownLatch(1);
            Runs runs = new Runs();
            executor.execute(runs.task(0, release));
            await().atMost(PATIENCE).until(() -> runs.started.size() == 1);

            // A fire thread hands its items on: it must come back although no slot frees before it does.
            CountDownLatch handedOn = new CountDownLatch(1);
            Thread fire = new Thread(() -> {
                for (int task = 1; task <= 100; task++) {
                    executor.execute(runs.task(task, release));
                }
                handedOn.countDown();
            });
            fire.start();

            assertThat(handedOn.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the submitting thread returned while the only slot was held")
                    .isTrue();
            assertThat(runs.started).containsExactly(0);
            release.countDown();
            await().atMost(PATIENCE).until(() -> runs.ended.get() == 101);
            assertThat(runs.mostAtOnce.get()).isEqualTo(1);
            assertThat(runs.started)
                    .as("one at a time, the queued runs start first come, first served")
                    .containsExactlyElementsOf(
                            IntStream.rangeClosed(0, 100).boxed().toList());
        }
    }

    @Test
    void runsEachTaskOnAVirtualThreadOfItsOwn() throws Exception {
        try (BoundedVirtualExecutor executor = new BoundedVirtualExecutor("sharding-item-", 2)) {
            Queue<Thread> threads = new ConcurrentLinkedQueue<>();
            for (int task = 0; task < 10; task++) {
                executor.execute(() -> threads.add(Thread.currentThread()));
            }
            await().atMost(PATIENCE).until(() -> threads.size() == 10);
            assertThat(threads).allMatch(BoundedVirtualExecutorTests::isVirtual);
            assertThat(threads).doesNotHaveDuplicates();
            assertThat(threads).allMatch(thread -> thread.getName().startsWith("sharding-item-"));
        }
    }

    @Test
    void aRunThatThrowsGivesItsSlotToTheNext() throws Exception {
        try (BoundedVirtualExecutor executor = new BoundedVirtualExecutor("test-", 1)) {
            AtomicInteger ran = new AtomicInteger();
            for (int task = 0; task < 5; task++) {
                executor.execute(() -> {
                    ran.incrementAndGet();
                    throw new IllegalStateException("an item that fails");
                });
            }
            await().atMost(PATIENCE).until(() -> ran.get() == 5 && executor.running() == 0);
        }
    }

    @Test
    void onCloseRefusesNewRunsDropsTheWaitingOnesAndInterruptsTheRunningOnes() throws Exception {
        BoundedVirtualExecutor executor = new BoundedVirtualExecutor("test-", 1);
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        executor.execute(() -> {
            ran.incrementAndGet();
            try {
                never.await();
            } catch (InterruptedException expected) {
                interrupted.countDown();
            }
        });
        executor.execute(ran::incrementAndGet);
        await().atMost(PATIENCE).until(() -> ran.get() == 1);

        executor.close();

        assertThat(interrupted.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        await().atMost(PATIENCE).until(() -> executor.running() == 0);
        assertThat(ran.get()).as("the waiting run was dropped").isEqualTo(1);
        assertThatThrownBy(() -> executor.execute(ran::incrementAndGet)).isInstanceOf(RejectedExecutionException.class);
    }

    @Property(tries = 30)
    @AddLifecycleHook(OnJava21.class)
    void neverRunsMoreThanTheLimitAndRunsEveryTask(
            @ForAll @IntRange(min = 1, max = 8) int limit,
            @ForAll @IntRange(min = 0, max = 200) int tasks,
            @ForAll @IntRange(min = 1, max = 4) int submitters)
            throws Exception {
        try (BoundedVirtualExecutor executor = new BoundedVirtualExecutor("test-", limit)) {
            Runs runs = new Runs();
            CountDownLatch open = new CountDownLatch(0);
            List<Thread> threads = IntStream.range(0, submitters)
                    .mapToObj(submitter -> new Thread(() -> {
                        for (int task = submitter; task < tasks; task += submitters) {
                            executor.execute(runs.task(task, open));
                        }
                    }))
                    .toList();
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join(PATIENCE.toMillis());
            }
            await().atMost(PATIENCE).until(() -> runs.ended.get() == tasks && executor.running() == 0);
            assertThat(runs.mostAtOnce.get()).isLessThanOrEqualTo(limit);
            assertThat(runs.started).hasSize(tasks).doesNotHaveDuplicates();
            assertThat(executor.waiting()).isZero();
        }
    }

    /** jqwik does not read JUnit Jupiter's conditions: the same one, for the property. */
    static final class OnJava21 implements SkipExecutionHook {

        @Override
        public SkipResult shouldBeSkipped(LifecycleContext context) {
            return Runtime.version().feature() >= 21
                    ? SkipResult.doNotSkip()
                    : SkipResult.skip("virtual threads need Java 21 or later");
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            // Thread.isVirtual is Java 21 API, and the project compiles for 17.
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Which tasks started, in order, how many ended, and the most that ran at once. */
    private static final class Runs {

        final Queue<Integer> started = new ConcurrentLinkedQueue<>();

        final AtomicInteger ended = new AtomicInteger();

        final AtomicInteger now = new AtomicInteger();

        final AtomicInteger mostAtOnce = new AtomicInteger();

        Runnable task(int id, CountDownLatch release) {
            return () -> {
                mostAtOnce.accumulateAndGet(now.incrementAndGet(), Math::max);
                started.add(id);
                try {
                    release.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                } finally {
                    now.decrementAndGet();
                    ended.incrementAndGet();
                }
            };
        }
    }
}
