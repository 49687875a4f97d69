package io.shardingjob.boot.actuate;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.CoordinationBudget;
import java.util.List;

/**
 * What a job costs ZooKeeper against the limits of {@code jute.maxbuffer} ({@link CoordinationBudget}): the figures
 * the judgement was made from, and every limit the job is within 80 % of or past. Read from what this instance knows,
 * at no request.
 *
 * @param itemsPerFire the items of one fire: claim nodes under its fire node
 * @param firesRetained the fires the ledger holds at once, as the latest audit listed them or as the schedule makes
 *     them due within the retention, whichever is more
 * @param ledgerNodes the nodes the ledger holds: fires retained, each with a claim per item
 * @param ledgerBytes what they take on every server, by estimate (250 bytes a claim)
 * @param ledgerWriteOperations the write operations this instance's ledger of the job asked for since it started
 * @param configurationBytes the job's configuration as stored
 * @param packetBytes the client's {@code jute.maxbuffer}: the largest answer it takes
 * @param findings the limits near or past, the worst first
 */
public record BudgetDescriptor(
        int itemsPerFire,
        long firesRetained,
        long ledgerNodes,
        long ledgerBytes,
        long ledgerWriteOperations,
        int configurationBytes,
        int packetBytes,
        List<FindingDescriptor> findings) {

    static BudgetDescriptor of(JobCoordinator job) {
        CoordinationBudget budget = job.budget();
        CoordinationBudget.Figures figures = budget.figures();
        return new BudgetDescriptor(
                figures.itemsPerFire(),
                figures.firesRetained(),
                budget.ledgerNodes(),
                budget.ledgerBytes(),
                figures.ledgerWriteOperations(),
                figures.configurationBytes(),
                figures.packetBytes(),
                FindingDescriptor.allOf(budget));
    }

    /**
     * One limit the job is near or past.
     *
     * @param limit which: {@code FIRE_READ}, {@code CONFIGURATION}, {@code ITEM_PARAMETERS}, {@code JOB_PARAMETER} or
     *     {@code LEDGER_LISTING}
     * @param severity {@code WARNING} within 80 % of it, {@code REFUSAL} past it (a job past one does not start)
     * @param property the setting that moves the job towards it
     * @param percent the value as a share of the limit
     * @param message the arithmetic, as an operator reads it
     */
    public record FindingDescriptor(String limit, String severity, String property, long percent, String message) {

        static List<FindingDescriptor> allOf(CoordinationBudget budget) {
            return budget.findings().stream()
                    .map(finding -> new FindingDescriptor(
                            finding.cliff().name(),
                            finding.severity().name(),
                            finding.property(),
                            finding.percent(),
                            finding.message()))
                    .toList();
        }
    }
}
