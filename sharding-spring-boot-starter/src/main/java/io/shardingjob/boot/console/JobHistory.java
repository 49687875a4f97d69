package io.shardingjob.boot.console;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.LedgerFire;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * A job's recent fires, read for one page: the ledger's and the execution log's, joined by {@link FireHistory}.
 *
 * @param store where the log is kept: {@code jdbc} (every instance's) or {@code memory} (this instance's)
 * @param logProblem why the log could not be read, {@code null} when it was
 */
record JobHistory(
        List<LedgerFire> ledger,
        List<FireHistory.Fire> fires,
        String store,
        @Nullable String logProblem) {

    /** Fires shown: the overview's strip and a job page's table. */
    static final int FIRES = 20;

    /** Log records read at most for one job: as many as 20 fires of all items need, within what the endpoint allows. */
    private static final int MAX_RECORDS = 500;

    static JobHistory read(ShardingOperations operations, JobCoordinator job, int items) {
        List<LedgerFire> ledger = job.ledger().recentFires(FIRES);
        String store = "memory";
        String problem = null;
        List<ExecutionRecord> log = List.of();
        try {
            ExecutionPage page =
                    operations.executions(job.jobName(), 0, Math.min(MAX_RECORDS, Math.max(FIRES, FIRES * items)));
            store = page.store();
            log = page.executions();
        } catch (IllegalStateException ex) {
            problem = "the execution log cannot be read: " + ex.getMessage();
        } catch (NoSuchElementException ex) {
            // The job stopped here since the page listed it: its ledger is all there is.
        }
        return new JobHistory(ledger, FireHistory.of(ledger, log, FIRES), store, problem);
    }

    /** Says which executions the outcomes come from. */
    String scope() {
        return "jdbc".equals(store)
                ? "Outcomes from the execution log of every instance (JDBC log) and the fire ledger."
                : "Outcomes from the fire ledger (every instance, while it retains a fire) and this instance's"
                        + " in-memory execution log; turn on sharding.execution.jdbc-log.enabled for every"
                        + " instance's.";
    }
}
