package io.shardingjob.boot.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.boot.jobs.ItemExecutorDecorator;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Observes every fire ({@code sharding.fire}, from the hand-off of its items to the recording of their ends) and every
 * item run ({@code sharding.item}, around the job's method on the item's thread, so that the method's own
 * observations and spans are its children). An item run in a fire is a child of the fire's observation, and every fire
 * of one chain of jobs at one fire time joins the chain's trace ({@link ChainTrace}).
 */
public final class ShardingObservations implements ShardedJobFireListener, ItemExecutorDecorator {

    /** Fires whose end never came (their instance stopped meanwhile) are let go beyond this many. */
    private static final int MAX_OPEN_FIRES = 4_096;

    private final ObservationRegistry registry;

    private final @Nullable ShardingFireObservationConvention fireConvention;

    private final @Nullable ShardingItemObservationConvention itemConvention;

    private final Map<FireKey, Observation> openFires = new LinkedHashMap<>();

    private record FireKey(String job, Instant fireTime) {}

    public ShardingObservations(
            ObservationRegistry registry,
            @Nullable ShardingFireObservationConvention fireConvention,
            @Nullable ShardingItemObservationConvention itemConvention) {
        this.registry = registry;
        this.fireConvention = fireConvention;
        this.itemConvention = itemConvention;
    }

    @Override
    public void beforeFire(String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {
        String instance = items.isEmpty() ? "" : items.get(0).instanceId();
        String chain = items.isEmpty() ? jobName : items.get(0).chain();
        ShardingFireObservationContext context = new ShardingFireObservationContext(
                jobName,
                fireTime,
                source,
                instance,
                items.stream().map(ShardingContext::item).toList(),
                chain);
        Observation fire = Observation.createNotStarted(
                        fireConvention, ShardingFireObservationConvention.DEFAULT, () -> context, registry)
                .start();
        synchronized (openFires) {
            Observation replaced = openFires.put(new FireKey(jobName, fireTime), fire);
            if (replaced != null) {
                replaced.stop();
            }
            for (Iterator<Observation> oldest = openFires.values().iterator();
                    openFires.size() > MAX_OPEN_FIRES && oldest.hasNext(); ) {
                oldest.next().stop();
                oldest.remove();
            }
        }
    }

    @Override
    public void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {
        Observation fire;
        synchronized (openFires) {
            fire = openFires.remove(new FireKey(jobName, fireTime));
        }
        if (fire != null) {
            ((ShardingFireObservationContext) fire.getContext()).setReport(report);
            fire.stop();
        }
    }

    @Override
    public ItemExecutor decorate(String job, ItemExecutor invocation) {
        return item -> {
            ShardingItemObservationContext context = new ShardingItemObservationContext(item);
            Observation run = Observation.createNotStarted(
                    itemConvention, ShardingItemObservationConvention.DEFAULT, () -> context, registry);
            Observation fire;
            synchronized (openFires) {
                fire = openFires.get(new FireKey(item.jobName(), item.fireTime()));
            }
            if (fire != null) {
                run.parentObservation(fire);
            }
            run.start();
            try (Observation.Scope scope = run.openScope()) {
                invocation.execute(item);
                context.setSucceeded(true);
            } catch (Exception | Error ex) {
                context.setSucceeded(false);
                run.error(ex);
                throw ex;
            } finally {
                run.stop();
            }
        };
    }
}
