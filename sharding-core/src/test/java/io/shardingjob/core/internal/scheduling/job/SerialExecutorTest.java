package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One job's coordination tasks never overlap, and a task waiting for an answer holds no thread of the shared pool. */
class SerialExecutorTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(1);

    private final SerialExecutor serial = new SerialExecutor(pool);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void aTaskStartsOnlyOnceTheWorkOfTheTaskBeforeItCompleted() throws Exception {
        CompletableFuture<Void> answer = new CompletableFuture<>();
        List<String> events = new CopyOnWriteArrayList<>();
        BlockingQueue<String> done = new LinkedBlockingQueue<>();

        serial.submit(() -> {
            events.add("first sent");
            return answer.thenRun(() -> events.add("first answered"));
        });
        serial.execute(() -> {
            events.add("second");
            done.add("second");
        });
        // The pool's only thread is free meanwhile: another job's task runs at once.
        CompletableFuture<String> otherJob = CompletableFuture.supplyAsync(() -> "other job", pool);

        assertThat(otherJob.get(5, TimeUnit.SECONDS)).isEqualTo("other job");
        assertThat(events).containsExactly("first sent");
        answer.complete(null);

        assertThat(done.poll(5, TimeUnit.SECONDS)).isEqualTo("second");
        assertThat(events).containsExactly("first sent", "first answered", "second");
    }

    @Test
    void aTaskThatFailedOrThrewDoesNotStopTheTasksAfterIt() throws Exception {
        BlockingQueue<String> done = new LinkedBlockingQueue<>();

        serial.submit(() -> CompletableFuture.failedFuture(new IllegalStateException("connection lost")));
        serial.execute(() -> {
            throw new IllegalStateException("a bug");
        });
        serial.execute(() -> done.add("after"));

        assertThat(done.poll(5, TimeUnit.SECONDS)).isEqualTo("after");
    }
}
