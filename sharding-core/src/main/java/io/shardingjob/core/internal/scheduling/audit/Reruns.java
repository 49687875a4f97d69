package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireReruns;
import io.shardingjob.core.internal.ledger.RerunRule;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's re-run of the failed items of one past fire: the ledger reopens their claims ({@link FireReruns}), and
 * the audits run them. Nothing here runs an item: each reopened claim is handed on, and its item's current owner takes
 * it over at its next audit (every instance audits when the re-run is announced, this one at once) through the path
 * every handed-on claim takes, so the run is the fire's own (its time, its job parameter, its context), source
 * {@code RETRY}, decided by the one "may it start now?" rule, and never beside another run of the item.
 */
public final class Reruns {

    private static final Logger log = LoggerFactory.getLogger(Reruns.class);
    private final JobView view;
    private final FireReruns ledger;
    private final AuditDemand audits;
    private final DueFires dueFires;

    public Reruns(JobView view, FireReruns ledger, AuditDemand audits, DueFires dueFires) {
        this.view = view;
        this.ledger = ledger;
        this.audits = audits;
        this.dueFires = dueFires;
    }

    /** On an operator's thread; refused as {@code JobCoordinator#rerunFailed} says. */
    public List<Integer> rerunFailed(Instant fireTime) {
        String job = view.jobName();
        if (!view.isStarted()) {
            throw new IllegalStateException("Job '" + job + "' is not running on this instance");
        }
        if (view.configuration().disabled()) {
            throw new IllegalStateException("Job '" + job + "' is disabled: enable it to re-run a fire");
        }
        if (fireTime.isBefore(dueFires.rule().start())) {
            // An earlier job's fire under the same name: its audits never read it.
            throw notInLedger(job, fireTime);
        }
        RerunRule.Verdict verdict;
        try {
            verdict = ledger.reopen(fireTime, view::now);
        } catch (IllegalStateException changing) {
            throw new IllegalStateException("Job '" + job + "': " + changing.getMessage(), changing);
        } catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new RegistryUnavailableException("Job '" + job + "': could not re-run the fire at " + fireTime, ex);
        }
        if (verdict instanceof RerunRule.Refused refused) {
            throw switch (refused.reason()) {
                case NOT_DUE_YET ->
                    new InvalidOperationException(
                            job, "fireTime", fireTime + " is still to come: nothing of that fire ran");
                case NOT_IN_LEDGER -> notInLedger(job, fireTime);
                case NO_FAILURE ->
                    new InvalidOperationException(
                            job, "fireTime", "no item of the fire at " + fireTime + " failed: nothing to re-run");
                case RUNNING ->
                    new IllegalStateException("Job '" + job + "': items " + refused.items()
                            + " of the fire at " + fireTime + " are running or waiting to run, and none failed:"
                            + " re-run it once they ended");
            };
        }
        List<Integer> items = ((RerunRule.Reopen) verdict).items();
        log.info("Job {}: items {} of the fire at {} reopened to run again (RETRY)", job, items, fireTime);
        audits.soon();
        return items;
    }

    private static InvalidOperationException notInLedger(String job, Instant fireTime) {
        return new InvalidOperationException(
                job,
                "fireTime",
                "the ledger holds no fire at " + fireTime
                        + ": it was retired after the ledger's retention (ledgerRetention), or never fired");
    }
}
