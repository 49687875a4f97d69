package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ShardedJobCompletionListener;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fire, completion and misfire listener beans of each job, in {@code @Order} order, each call isolated from the
 * others.
 */
public final class JobListeners {

    private static final Logger log = LoggerFactory.getLogger(JobListeners.class);

    private final Supplier<List<ShardedJobFireListener>> fireListeners;

    private final Supplier<List<ShardedJobCompletionListener>> completionListeners;

    private final Supplier<List<MisfireListener>> misfireListeners;

    /** @param misfireListeners the starter's own (the alerts'): misfire listeners are no bean type of the API */
    public JobListeners(
            Supplier<List<ShardedJobFireListener>> fireListeners,
            Supplier<List<ShardedJobCompletionListener>> completionListeners,
            Supplier<List<MisfireListener>> misfireListeners) {
        this.fireListeners = fireListeners;
        this.completionListeners = completionListeners;
        this.misfireListeners = misfireListeners;
    }

    FireListener fireListenerFor(String job) {
        List<ShardedJobFireListener> listeners = fireListeners.get().stream()
                .filter(listener -> listener.jobs().isEmpty() || listener.jobs().contains(job))
                .toList();
        return new FireListener() {
            @Override
            public void beforeFire(
                    String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {
                listeners.forEach(listener ->
                        isolated(jobName, listener, () -> listener.beforeFire(jobName, fireTime, source, items)));
            }

            @Override
            public void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {
                listeners.forEach(listener ->
                        isolated(jobName, listener, () -> listener.afterFire(jobName, fireTime, source, report)));
            }
        };
    }

    /** Null when the job has none, so that the core does not track completions for nothing. */
    @Nullable
    FireCompletionListener completionListenerFor(String job) {
        List<ShardedJobCompletionListener> listeners = completionListeners.get().stream()
                .filter(listener -> listener.jobs().isEmpty() || listener.jobs().contains(job))
                .toList();
        if (listeners.isEmpty()) {
            return null;
        }
        return completion ->
                listeners.forEach(listener -> isolated(job, listener, () -> listener.fireCompleted(completion)));
    }

    /** Null when there is none, as the core needs none. */
    @Nullable
    MisfireListener misfireListenerFor(String job) {
        List<MisfireListener> listeners = misfireListeners.get();
        if (listeners.isEmpty()) {
            return null;
        }
        return new MisfireListener() {
            @Override
            public void fireMissed(String jobName, Instant fireTime, List<Integer> items, String detail) {
                listeners.forEach(listener ->
                        isolated(job, listener, () -> listener.fireMissed(jobName, fireTime, items, detail)));
            }

            @Override
            public void fireOverran(String jobName, Instant fireTime, List<Integer> items, String detail) {
                listeners.forEach(listener ->
                        isolated(job, listener, () -> listener.fireOverran(jobName, fireTime, items, detail)));
            }
        };
    }

    private static void isolated(String job, Object listener, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: listener {} failed", job, listener, ex);
        }
    }
}
