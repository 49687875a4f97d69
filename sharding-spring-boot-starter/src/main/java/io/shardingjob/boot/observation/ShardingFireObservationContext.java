package io.shardingjob.boot.observation;

import io.micrometer.observation.transport.ReceiverContext;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code sharding.fire} observation sees: one fire of a job on this instance, from the hand-off of its items to
 * the recording of their ends, and the fire's report once it is over. It is received from its chain's trace
 * ({@link ChainTrace}): with a tracer, every fire of one chain at one fire time, on every instance, is a span of one
 * trace.
 */
public final class ShardingFireObservationContext extends ReceiverContext<ChainTrace> {

    private final String job;

    private final String chain;

    private final Instant fireTime;

    private final ExecutionSource source;

    private final String instance;

    private final List<Integer> items;

    private @Nullable FireReport report;

    public ShardingFireObservationContext(
            String job, Instant fireTime, ExecutionSource source, String instance, List<Integer> items) {
        this(job, fireTime, source, instance, items, job);
    }

    /** @param chain the job whose fire began the chain this fire belongs to ({@code ShardingContext.chain()}) */
    public ShardingFireObservationContext(
            String job, Instant fireTime, ExecutionSource source, String instance, List<Integer> items, String chain) {
        super((carrier, field) -> carrier.field(field));
        setCarrier(ChainTrace.of(chain, fireTime));
        this.chain = chain;
        this.job = job;
        this.fireTime = fireTime;
        this.source = source;
        this.instance = instance;
        this.items = List.copyOf(items);
    }

    public String getJob() {
        return job;
    }

    /** The job whose fire began the chain this fire belongs to: the job itself unless it follows others. */
    public String getChain() {
        return chain;
    }

    /** The fire's scheduled time. */
    public Instant getFireTime() {
        return fireTime;
    }

    public ExecutionSource getSource() {
        return source;
    }

    /** The instance the fire ran on. */
    public String getInstance() {
        return instance;
    }

    /** The items the fire ran here. */
    public List<Integer> getItems() {
        return items;
    }

    /** The fire's report; null until the fire is over. */
    public @Nullable FireReport getReport() {
        return report;
    }

    public void setReport(FireReport report) {
        this.report = report;
    }

    /**
     * Whether the last run of every item the fire ran here succeeded (a retry that succeeded makes up for the runs
     * before it); null until the fire is over.
     */
    public @Nullable Boolean getSucceeded() {
        FireReport over = report;
        return over == null ? null : over.succeeded();
    }
}
