package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.registry.Answers;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an item's end completed its fire, checked on the serial executor. Each check reads the whole fire, so the
 * items of one fire that end together cost one check, and a job without a completion listener checks nothing.
 */
public final class CompletionChecks {

    private static final Logger log = LoggerFactory.getLogger(CompletionChecks.class);

    /** Completes nothing unless a listener was given or a job follows this one: completing a fire costs reads. */
    private final @Nullable LedgerCompletions completions;

    private final FireLedger ledger;

    private final SerialExecutor serial;

    /** The current session: the completing note names it, so that a completer that died is taken over. */
    private final LongSupplier sessionId;

    private final String jobName;

    /** Fires whose completion check is waiting on the serial executor. */
    private final Set<Instant> waiting = ConcurrentHashMap.newKeySet();

    public CompletionChecks(
            @Nullable LedgerCompletions completions,
            FireLedger ledger,
            SerialExecutor serial,
            LongSupplier sessionId,
            String jobName) {
        this.completions = completions;
        this.ledger = ledger;
        this.serial = serial;
        this.sessionId = sessionId;
        this.jobName = jobName;
    }

    /** An item of the fire ended and its claim says so: when a completion listener is set, the fire may be complete. */
    void itemEnded(Instant fireTime) {
        LedgerCompletions listening = completions;
        if (listening != null && listening.isActive() && waiting.add(fireTime)) {
            serial.submit(() -> {
                waiting.remove(fireTime);
                return ledger.readAsync(List.of(fireTime))
                        .thenCompose(views ->
                                listening.completeIfSettled(views.get(0), sessionId.getAsLong(), null, serial.pool()))
                        .exceptionally(failure -> {
                            log.debug(
                                    "Job {}: completion check of {} failed: {}",
                                    jobName,
                                    fireTime,
                                    Answers.cause(failure).toString());
                            return null;
                        });
            });
        }
    }
}
