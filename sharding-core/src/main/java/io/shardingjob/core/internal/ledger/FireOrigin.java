package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * How a fire was asked for, as its node in the ledger records it: by the schedule, or by an operator's trigger with the
 * job parameter given then. The fire's node is the one place this is kept, so every run of the fire's items (its
 * owner's, a make-up, a take-over, a retry) gets the same parameter, whoever runs it and whenever.
 *
 * <p>The node's data is its note (who completes the fire, or {@link LedgerRules#AHEAD}) on the first line, as before
 * manual fires existed (such a node reads as {@link #SCHEDULED}), then the origin as {@code key=value} lines with
 * {@link Properties} escapes, readable in zkCli:
 *
 * <pre>
 * completed 10.0.0.5@-@4242
 * source=MANUAL
 * jobParameter=rerun of 2026-11-20
 * </pre>
 *
 * @param manual whether an operator asked for the fire ({@code JobCoordinator.trigger})
 * @param jobParameter the parameter every item of the fire runs with; null for the job's configured one
 * @param after for a job that follows others ({@code JobConfiguration.after}), the upstream jobs whose fire at this
 *     time completed and recorded this one, in the order they did
 * @param awaiting the upstream jobs whose fire at this time has not completed yet (fan-in): the fire is not due while
 *     any is
 * @param abandonedBy the upstream job whose fire at this time completed otherwise than this job's {@code on} asks (or
 *     can no longer complete): the fire never runs, and settles with nothing due; null for none
 * @param unattended whether the fire was recorded while no instance of its job was registered: its items are then made
 *     up under the job's misfire policy, as any fire missed by every instance; otherwise they run whatever the policy
 * @param chain for a fire its upstreams recorded, the job whose fire began the chain (the root's); null otherwise
 */
public record FireOrigin(
        boolean manual,
        @Nullable String jobParameter,
        List<String> after,
        List<String> awaiting,
        @Nullable String abandonedBy,
        boolean unattended,
        @Nullable String chain) {

    /** A fire of the schedule, or one recorded without an origin: its items run with the configured parameter. */
    public static final FireOrigin SCHEDULED = new FireOrigin(false, null);

    private static final String SOURCE = "source";
    private static final String MANUAL = "MANUAL";
    private static final String JOB_PARAMETER = "jobParameter";
    private static final String AFTER = "after";
    private static final String AWAITING = "awaiting";
    private static final String ABANDONED_BY = "abandonedBy";
    private static final String UNATTENDED = "unattended";
    private static final String CHAIN = "chain";

    public FireOrigin {
        after = List.copyOf(after);
        awaiting = List.copyOf(awaiting);
    }

    public FireOrigin(boolean manual, @Nullable String jobParameter) {
        this(manual, jobParameter, List.of(), List.of(), null, false, null);
    }

    /** An operator's fire, with the parameter asked for (null: the job's configured one). */
    public static FireOrigin manual(@Nullable String jobParameter) {
        return new FireOrigin(true, jobParameter);
    }

    /**
     * The fire of a job following others, as the first of its upstreams to complete records it.
     *
     * @param others the job's other upstreams, awaited until their fire at the same time completes
     * @param chain the job whose fire began the chain: the upstream's own chain, or the upstream
     */
    public static FireOrigin after(String upstream, List<String> others, boolean unattended, String chain) {
        return awaiting(others, unattended, chain).completedBy(upstream);
    }

    /** The fire of a job following others, before any of {@code upstreams} completed its fire at the same time. */
    static FireOrigin awaiting(List<String> upstreams, boolean unattended, String chain) {
        return new FireOrigin(false, null, List.of(), upstreams, null, unattended, chain);
    }

    /** The job whose fire began the chain this fire belongs to: its root's name, or {@code job} for a root's fire. */
    public String chainOr(String job) {
        return chain != null ? chain : job;
    }

    /**
     * This origin once {@code upstream}'s fire at its time completed otherwise than the job's {@code on} asks: the fire
     * never runs; null once an operator's re-run of that fire's failed items made it complete as followed.
     */
    public FireOrigin abandonedBy(@Nullable String upstream) {
        return new FireOrigin(manual, jobParameter, after, awaiting, upstream, unattended, chain);
    }

    /** Whether the fire will never run: an upstream's fire at its time did not complete as this job follows it. */
    public boolean isAbandoned() {
        return abandonedBy != null;
    }

    /**
     * Whether every run of the fire's items is owed whatever the misfire policy: an operator's fire, and a fire its
     * upstreams recorded while an instance of the job was there to run it.
     */
    public boolean runsUnderEveryPolicy() {
        return manual || (followsUpstream() && !unattended);
    }

    /**
     * Whether the catch-up horizon gives the fire up once older than it: a fire of the schedule, or an operator's,
     * whose time is when it came due. Not a fire its upstreams recorded: it carries their fire time, older than when it
     * came due by as long as they ran, so its items are made up whatever its age (under the misfire policy when
     * unattended), and it is not retired before every one of them has settled.
     */
    public boolean agesOut() {
        return !followsUpstream();
    }

    /** Whether upstream jobs recorded this fire (or are awaited for it): its runs are {@code UPSTREAM} runs. */
    public boolean followsUpstream() {
        return !after.isEmpty() || !awaiting.isEmpty();
    }

    /**
     * Why the fire's items run: {@code UPSTREAM} for a fire the jobs it follows recorded (announced to its instances as
     * an operator's is), else as asked.
     */
    public ExecutionSource sourceOr(ExecutionSource asked) {
        return followsUpstream() ? ExecutionSource.UPSTREAM : asked;
    }

    /** Whether the fire still waits for an upstream job's fire at its time: nothing of it is due until then. */
    public boolean isAwaiting() {
        return !awaiting.isEmpty();
    }

    /**
     * This origin once {@code upstream}'s fire completed: no longer awaited, and named among those that recorded the
     * fire. The same origin when it already is: a completion written twice (a completer taken over) changes nothing.
     */
    public FireOrigin completedBy(String upstream) {
        if (after.contains(upstream)) {
            return this;
        }
        return new FireOrigin(
                manual,
                jobParameter,
                Stream.concat(after.stream(), Stream.of(upstream)).toList(),
                awaiting.stream().filter(job -> !job.equals(upstream)).toList(),
                abandonedBy,
                unattended,
                chain);
    }

    /** The parameter the fire's items run with: its own, else the job's configured one as stored now. */
    public String parameterOr(String configured) {
        return jobParameter != null ? jobParameter : configured;
    }

    /** The node's data: the note, then this origin. A scheduled fire's node holds the note alone, as it always did. */
    byte[] withNote(String note) {
        StringBuilder text = new StringBuilder(note).append('\n');
        if (manual) {
            JobConfigurationCodec.appendLine(text, SOURCE, MANUAL);
        }
        if (jobParameter != null) {
            JobConfigurationCodec.appendLine(text, JOB_PARAMETER, jobParameter);
        }
        if (!after.isEmpty()) {
            JobConfigurationCodec.appendLine(text, AFTER, String.join(",", after));
        }
        if (!awaiting.isEmpty()) {
            JobConfigurationCodec.appendLine(text, AWAITING, String.join(",", awaiting));
        }
        if (abandonedBy != null) {
            JobConfigurationCodec.appendLine(text, ABANDONED_BY, abandonedBy);
        }
        if (unattended) {
            JobConfigurationCodec.appendLine(text, UNATTENDED, true);
        }
        if (chain != null) {
            JobConfigurationCodec.appendLine(text, CHAIN, chain);
        }
        // The note alone is one line without a break, as a scheduled fire's node always held.
        return text.substring(0, text.length() - 1).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A fire node's data, read.
     *
     * @param note the first line: who completes the fire, or that it was created ahead; empty for none
     */
    record NodeData(String note, FireOrigin origin) {}

    /** Reads a fire node's data; what cannot be read is a scheduled fire's. */
    static NodeData read(byte @Nullable [] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        if (newline < 0) {
            return new NodeData(text, SCHEDULED);
        }
        Properties fields = new Properties();
        try {
            fields.load(new StringReader(text.substring(newline + 1)));
        } catch (IOException | IllegalArgumentException unreadable) {
            return new NodeData(text.substring(0, newline), SCHEDULED);
        }
        return new NodeData(
                text.substring(0, newline),
                new FireOrigin(
                        MANUAL.equals(fields.getProperty(SOURCE)),
                        fields.getProperty(JOB_PARAMETER),
                        JobConfigurationCodec.names(fields.getProperty(AFTER, "")),
                        JobConfigurationCodec.names(fields.getProperty(AWAITING, "")),
                        fields.getProperty(ABANDONED_BY),
                        Boolean.parseBoolean(fields.getProperty(UNATTENDED)),
                        fields.getProperty(CHAIN)));
    }
}
