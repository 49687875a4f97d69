package io.shardingjob.boot.executionlog;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobListener;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last item executions of each job on this instance, in memory, for operators. Bounded per job so that a job
 * firing every second for months costs the same memory as one that just started.
 */
public final class ExecutionHistory implements ShardedJobListener, ExecutionLog {

    private final int capacity;

    private final Map<String, Deque<ExecutionRecord>> byJob = new ConcurrentHashMap<>();

    public ExecutionHistory(int capacity) {
        this.capacity = Math.max(0, capacity);
    }

    @Override
    public void executed(ExecutionRecord execution) {
        if (capacity == 0) {
            return;
        }
        Deque<ExecutionRecord> records = byJob.computeIfAbsent(execution.job(), job -> new ArrayDeque<>());
        synchronized (records) {
            if (records.size() == capacity) {
                records.removeLast();
            }
            records.addFirst(execution);
        }
    }

    @Override
    public ExecutionPage executions(String job, int page, int size) {
        List<ExecutionRecord> all = recent(job);
        long from = Math.min((long) page * size, all.size());
        List<ExecutionRecord> slice = all.subList((int) from, (int) Math.min(from + size, all.size()));
        return new ExecutionPage(job, page, size, "memory", List.copyOf(slice), null);
    }

    /** Newest first. */
    public List<ExecutionRecord> recent(String job) {
        Deque<ExecutionRecord> records = byJob.get(job);
        if (records == null) {
            return List.of();
        }
        synchronized (records) {
            return List.copyOf(records);
        }
    }
}
