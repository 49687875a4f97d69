package io.shardingjob.boot.alerts;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardedJobAlert.Type;
import io.shardingjob.boot.ShardedJobAlertListener;
import io.shardingjob.boot.ShardedJobCompletionListener;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.FireCompletion.Outcome;
import io.shardingjob.core.execution.MisfireListener;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Raises the alerts of every job from what the coordination reports anyway, and hands them to the dispatcher:
 *
 * <ul>
 *   <li>a failed item from each item run on this instance, when the run failed or timed out and no retry follows (its
 *       retry number reached the job's {@code retries}: a run cut short by a lost claim is continued, with its count,
 *       by the item's next owner, which reports the final outcome);
 *   <li>a failed fire from the completion of each fire across the cluster (so, as a completion listener bean, it turns
 *       the completion tracking of every job on), once per fire, on the instance that completes it;
 *   <li>missed and overrun fires from the core's {@link MisfireListener}, on the instance that owns the items.
 * </ul>
 *
 * Each is called on a job's thread and only builds the alert and queues it.
 */
public final class ShardingAlerts
        implements ShardedJobListener, ShardedJobCompletionListener, MisfireListener, AutoCloseable {

    private final ShardingOperations jobs;

    private final AlertDispatcher dispatcher;

    private final Clock clock;

    /**
     * @param jobs the jobs of this instance, whose settings (retries) decide what is an alert
     * @param listeners the listeners every alert is handed to, asked for at each alert
     * @param clock the time of the alerts
     */
    public ShardingAlerts(ShardingOperations jobs, Supplier<List<ShardedJobAlertListener>> listeners, Clock clock) {
        this.jobs = jobs;
        this.dispatcher = new AlertDispatcher(listeners);
        this.clock = clock;
    }

    @Override
    public void executed(ExecutionRecord execution) {
        // A run fenced out is no failure of the job: its item's new owner runs it.
        if (execution.outcome() == ExecutionRecord.Outcome.SUCCESS
                || execution.outcome() == ExecutionRecord.Outcome.FENCED_OUT
                || execution.retry() < retries(execution.job())) {
            return;
        }
        String how = execution.outcome() == ExecutionRecord.Outcome.TIMED_OUT ? " timed out" : " failed";
        String retried = execution.retry() == 0
                ? ""
                : " after " + execution.retry() + (execution.retry() == 1 ? " retry" : " retries");
        raise(new ShardedJobAlert(
                Type.ITEM_FAILED,
                execution.job(),
                execution.fireTime(),
                List.of(execution.item()),
                execution.instance(),
                clock.instant(),
                "Item " + execution.item() + how + retried + ": " + execution.failure()));
    }

    @Override
    public void fireCompleted(FireCompletion completion) {
        if (completion.succeeded()) {
            return;
        }
        Map<Integer, FireCompletion.ItemEnd> failed = new TreeMap<>();
        completion.items().forEach((item, end) -> {
            if (end.outcome() == Outcome.FAILED || end.outcome() == Outcome.TIMED_OUT) {
                failed.put(item, end);
            }
        });
        StringBuilder message = new StringBuilder()
                .append(failed.size())
                .append(" of ")
                .append(completion.shardingTotalCount())
                .append(" items failed:");
        failed.forEach((item, end) -> message.append(' ')
                .append(item)
                .append(' ')
                .append(end.outcome())
                .append(" on ")
                .append(end.instanceId())
                .append(';'));
        message.setLength(message.length() - 1);
        raise(new ShardedJobAlert(
                Type.FIRE_FAILED,
                completion.jobName(),
                completion.fireTime(),
                List.copyOf(failed.keySet()),
                jobs.instanceId(),
                clock.instant(),
                message.toString()));
    }

    @Override
    public void fireMissed(String jobName, Instant fireTime, List<Integer> items, String detail) {
        raise(new ShardedJobAlert(
                Type.FIRE_MISSED,
                jobName,
                fireTime,
                items,
                jobs.instanceId(),
                clock.instant(),
                "Not claimed within its lateness bound: " + detail));
    }

    @Override
    public void fireOverran(String jobName, Instant fireTime, List<Integer> items, String detail) {
        raise(new ShardedJobAlert(
                Type.FIRE_OVERRAN,
                jobName,
                fireTime,
                items,
                jobs.instanceId(),
                clock.instant(),
                "Came due while items of an earlier fire still ran: " + detail));
    }

    /** The job's retries as stored; none for a job not listed yet (it is starting), so that no failure goes unreported. */
    private int retries(String job) {
        return jobs.job(job)
                .map(coordinator -> coordinator.configuration().retries())
                .orElse(0);
    }

    private void raise(ShardedJobAlert alert) {
        dispatcher.dispatch(alert);
    }

    @Override
    public void close() {
        dispatcher.close();
    }
}
