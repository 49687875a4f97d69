package io.shardingjob.core.internal.budget;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.CoordinationBudget.Cliff;
import io.shardingjob.core.config.CoordinationBudget.Figures;
import io.shardingjob.core.config.CoordinationBudget.Finding;
import io.shardingjob.core.config.CoordinationBudget.Severity;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The pure rule of a job's coordination budget: figures in, a {@link Finding} per ZooKeeper limit the job is within
 * {@link #WARNING_PERCENT} of (a warning) or past (a refusal), each with its arithmetic. It reuses the limits the rest
 * of the core enforces, never one of its own:
 *
 * <ul>
 *   <li><b>the audits' read of fires</b>: an audit reads {@link LedgerReads#MAX_FIRES_PER_READ} fires with the names of
 *       their claims in one answer, which must stay under the client's {@code jute.maxbuffer}; a fire lists 4 bytes of
 *       length and the digits of each item's number, and its node holds at most twice the largest job parameter
 *       (escaped) and a few lines more;
 *   <li><b>the configuration</b>: its stored form under {@link OperatorInputs#MAX_CONFIGURATION_BYTES}, its item
 *       parameters under {@link OperatorInputs#MAX_ITEM_PARAMETERS_BYTES}, its job parameter under
 *       {@link JobConfiguration#MAX_JOB_PARAMETER_BYTES} (the one limit a trigger's parameter is held to);
 *   <li><b>the ledger's listing</b>: every audit and the leader's upkeep list the fires of the job's ledger in one
 *       answer, 4 bytes of length and 13 digits a fire, under {@code jute.maxbuffer}: the fires retained are the item
 *       rate's side of the ledger, the fires of one retention (and one reconcile interval).
 * </ul>
 */
final class BudgetRule {

    /** How near a limit a job may come before it is warned: 80 % of it. */
    static final int WARNING_PERCENT = 80;

    /** A fire node's data at most: a triggered fire's job parameter, escaped (two bytes a byte), and its other lines. */
    static final long FIRE_NODE_BYTES = 2L * JobConfiguration.MAX_JOB_PARAMETER_BYTES + ClientRequests.READ_DATA_BYTES;

    /** What an answer adds to each node it reads: the operation's header, the lengths, the node's stat. */
    static final long ANSWER_OVERHEAD_BYTES = 100;

    /** A fire's name in the ledger's listing: its length (4 bytes) and its time in milliseconds (13 digits). */
    static final long FIRE_NAME_BYTES = 4 + 13;

    private BudgetRule() {}

    static CoordinationBudget assess(Figures figures) {
        List<Finding> findings = new ArrayList<>();
        judge(findings, Cliff.FIRE_READ, fireRead(figures), figures.packetBytes(), fireReadArithmetic(figures));
        judge(
                findings,
                Cliff.CONFIGURATION,
                figures.configurationBytes(),
                OperatorInputs.MAX_CONFIGURATION_BYTES,
                "stored, the configuration takes " + bytes(figures.configurationBytes()) + " of the "
                        + bytes(OperatorInputs.MAX_CONFIGURATION_BYTES)
                        + " one node of it may hold (half of ZooKeeper's default jute.maxbuffer)");
        judge(
                findings,
                Cliff.ITEM_PARAMETERS,
                figures.itemParametersBytes(),
                OperatorInputs.MAX_ITEM_PARAMETERS_BYTES,
                "the item parameters take " + bytes(figures.itemParametersBytes()) + " in UTF-8 of the "
                        + bytes(OperatorInputs.MAX_ITEM_PARAMETERS_BYTES) + " allowed");
        judge(
                findings,
                Cliff.JOB_PARAMETER,
                figures.jobParameterBytes(),
                JobConfiguration.MAX_JOB_PARAMETER_BYTES,
                "the job parameter takes " + bytes(figures.jobParameterBytes()) + " in UTF-8 of the "
                        + bytes(JobConfiguration.MAX_JOB_PARAMETER_BYTES)
                        + " allowed (a triggered fire stores it in its ledger node, eight of which one audit reads)");
        judge(
                findings,
                Cliff.LEDGER_LISTING,
                ledgerListing(figures),
                figures.packetBytes(),
                String.format(
                        Locale.ROOT,
                        "%,d fires retained x %d bytes a name + %d = %s in the listing of the ledger every audit reads"
                                + " in one answer, of the %s jute.maxbuffer allows; retained are the fires of one"
                                + " ledgerRetention (and one reconcile interval) at the job's fire rate",
                        figures.firesRetained(),
                        FIRE_NAME_BYTES,
                        ANSWER_OVERHEAD_BYTES,
                        bytes(ledgerListing(figures)),
                        bytes(figures.packetBytes())));
        findings.sort(Comparator.comparing(Finding::severity).reversed());
        return new CoordinationBudget(figures, findings);
    }

    /**
     * The limits a change of the stored configuration takes the job past: those {@code next} is past by more than the
     * job was before (every one it is past, for a new job). A change that leaves a job as far past a limit as it was,
     * or brings it nearer, is not refused, so that a job stored under a larger packet can still be disabled or brought
     * back under the limit.
     *
     * @param current the budget of the configuration stored now, null for a new job
     */
    static List<Finding> refusalsOfChange(@Nullable CoordinationBudget current, CoordinationBudget next) {
        return next.findings().stream()
                .filter(finding -> finding.severity() == Severity.REFUSAL)
                .filter(finding -> current == null || finding.value() > valueBefore(current, finding.cliff()))
                .toList();
    }

    private static long valueBefore(CoordinationBudget current, Cliff cliff) {
        // A cliff without a finding was under the margin, so below any value past the limit.
        return current.findings().stream()
                .filter(finding -> finding.cliff() == cliff)
                .mapToLong(Finding::value)
                .findFirst()
                .orElse(0);
    }

    /** What one audit's read of fires answers at most, in bytes. */
    static long fireRead(Figures figures) {
        return LedgerReads.MAX_FIRES_PER_READ * perFire(figures.itemsPerFire());
    }

    private static long perFire(int items) {
        return claimNames(items) + FIRE_NODE_BYTES + 2 * ANSWER_OVERHEAD_BYTES;
    }

    /** The listing of a fire's claims: each item's number in decimal, with its length. */
    static long claimNames(int items) {
        long bytes = 0;
        long from = 0;
        for (int digits = 1; from < items; digits++) {
            long to = Math.min(items, from == 0 ? 10 : from * 10);
            bytes += (to - from) * (4 + digits);
            from = to;
        }
        return bytes;
    }

    static long ledgerListing(Figures figures) {
        return figures.firesRetained() * FIRE_NAME_BYTES + ANSWER_OVERHEAD_BYTES;
    }

    private static String fireReadArithmetic(Figures figures) {
        int items = figures.itemsPerFire();
        return String.format(
                Locale.ROOT,
                "an audit reads %d fires in one answer, each the names of its %,d claims (%s) and its node (up to %s),"
                        + " with %d bytes of headers: %d x %s = %s, of the %s jute.maxbuffer allows",
                LedgerReads.MAX_FIRES_PER_READ,
                items,
                bytes(claimNames(items)),
                bytes(FIRE_NODE_BYTES),
                2 * ANSWER_OVERHEAD_BYTES,
                LedgerReads.MAX_FIRES_PER_READ,
                bytes(perFire(items)),
                bytes(fireRead(figures)),
                bytes(figures.packetBytes()));
    }

    private static void judge(List<Finding> findings, Cliff cliff, long value, long limit, String arithmetic) {
        if (value > limit) {
            findings.add(new Finding(cliff, Severity.REFUSAL, value, limit, arithmetic));
        } else if (value * 100 >= limit * WARNING_PERCENT) {
            findings.add(new Finding(cliff, Severity.WARNING, value, limit, arithmetic));
        }
    }

    private static String bytes(long bytes) {
        return String.format(Locale.ROOT, "%,d bytes", bytes);
    }
}
