package io.shardingjob.core.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.registry.JobCache;
import io.shardingjob.core.registry.JobNodes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToLongFunction;
import java.util.stream.IntStream;
import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Removing the marks of completed items: in few writes, yet each gone before its caller goes on. */
class RunningMarksTest extends ZooKeeperTestSupport {

    private static final int ITEMS = 50;

    private static final String MULTI = "CuratorMultiTransactionImpl-Foreground";

    private static final String DELETE = "DeleteBuilderImpl-Foreground";

    private final JobNodes nodes = new JobNodes("marks");

    private final List<Thread> callers = new ArrayList<>(ITEMS);

    private CuratorFramework client;

    private RunningMarks marks;

    private long session;

    @BeforeEach
    void markEveryItem() throws Exception {
        client = newClient();
        client.create().creatingParentsIfNeeded().forPath(nodes.running());
        marks = new RunningMarks(client, nodes, new JobCache(client, nodes, Runnable::run));
        session = client.getZookeeperClient().getZooKeeper().getSessionId();
        List<Integer> items = IntStream.range(0, ITEMS).boxed().toList();
        RunningMark mark = new RunningMark("a", session, 1, Instant.now(), ITEMS, ExecutionSource.NORMAL);
        assertThat(marks.mark(items, mark)).isEqualTo(items);
    }

    @Test
    void concurrentCompletionsAreRemovedInFewerWritesThanItems() throws Exception {
        Writes writes = traceWrites(ITEMS, () -> {});

        clearAllAtOnce(writes, item -> session);

        assertThat(remainingMarks()).isEmpty();
        assertThat(writes.count(MULTI)).isPositive();
        assertThat(writes.count(MULTI) + writes.count(DELETE)).isLessThan(ITEMS);
    }

    @Test
    void aLoneCompletionIsRemovedAtOnceWithOneDelete() throws Exception {
        Writes writes = traceWrites(0, () -> {});

        marks.clear(7, session);

        assertThat(remainingMarks()).hasSize(ITEMS - 1).doesNotContain("7");
        assertThat(writes.count(DELETE)).isEqualTo(1);
        assertThat(writes.count(MULTI)).isZero();
    }

    @Test
    void clearsUnderAnotherSessionLeaveTheirMarksToFailover() throws Exception {
        clearAllAtOnce(traceWrites(ITEMS, () -> {}), item -> item % 2 == 0 ? session : session + 1);

        assertThat(remainingMarks())
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, ITEMS)
                        .filter(item -> item % 2 == 1)
                        .mapToObj(String::valueOf)
                        .toList());
    }

    @Test
    void marksAlreadyGoneDoNotKeepTheOthersOfTheirBatch() throws Exception {
        for (int item = 0; item < ITEMS; item += 2) {
            client.delete().forPath(nodes.runningItem(item));
        }

        clearAllAtOnce(traceWrites(ITEMS, () -> {}), item -> session);

        assertThat(remainingMarks()).isEmpty();
    }

    @Test
    void callersInterruptedWhileTheyWaitForTheirBatchStillReturnAndStayInterrupted() throws Exception {
        // As abandoning the running items does, while one flush is under way and the others wait behind it.
        Set<Integer> leftInterrupted =
                clearAllAtOnce(traceWrites(ITEMS, () -> callers.forEach(Thread::interrupt)), item -> session);

        assertThat(leftInterrupted).hasSize(ITEMS);
    }

    private Writes traceWrites(int expectedCallers, Runnable whileHeld) {
        Writes writes = new Writes(expectedCallers, whileHeld);
        client.getZookeeperClient().setTracerDriver(writes);
        return writes;
    }

    /** Clears every item, each on its own thread, all at once; returns the items whose caller was left interrupted. */
    private Set<Integer> clearAllAtOnce(Writes writes, IntToLongFunction sessionOf) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        Set<Integer> leftInterrupted = ConcurrentHashMap.newKeySet();
        for (int item = 0; item < ITEMS; item++) {
            int it = item;
            Thread caller = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException ex) {
                    return;
                }
                writes.arrived.countDown();
                marks.clear(it, sessionOf.applyAsLong(it));
                if (Thread.currentThread().isInterrupted()) {
                    leftInterrupted.add(it);
                }
            });
            caller.start();
            callers.add(caller);
        }
        start.countDown();
        for (Thread caller : callers) {
            caller.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(caller.isAlive()).as("a caller still waits for its mark").isFalse();
        }
        return leftInterrupted;
    }

    private List<String> remainingMarks() throws Exception {
        return client.getChildren().forPath(nodes.running());
    }

    /**
     * Counts the deletes and multis, and holds the first flusher after its first write until every caller has come,
     * so that the others queue up behind it however the threads are scheduled.
     */
    private static final class Writes extends AdvancedTracerDriver {

        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        private final CountDownLatch arrived;

        private final AtomicBoolean held = new AtomicBoolean();

        private final Runnable whileHeld;

        Writes(int expectedCallers, Runnable whileHeld) {
            this.arrived = new CountDownLatch(expectedCallers);
            this.whileHeld = whileHeld;
        }

        @Override
        public void addTrace(OperationTrace trace) {
            if (!trace.getName().equals(MULTI) && !trace.getName().equals(DELETE)) {
                return;
            }
            counts.computeIfAbsent(trace.getName(), name -> new AtomicInteger()).incrementAndGet();
            if (held.compareAndSet(false, true)) {
                try {
                    arrived.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                whileHeld.run();
            }
        }

        @Override
        public void addEvent(EventTrace trace) {}

        int count(String name) {
            AtomicInteger count = counts.get(name);
            return count == null ? 0 : count.get();
        }
    }
}
