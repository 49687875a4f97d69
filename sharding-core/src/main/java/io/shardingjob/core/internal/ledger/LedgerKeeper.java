package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The leader's upkeep of the ledger, run with its periodic reconcile: it moves the watermark past the fires that are
 * settled (and completed, when a completion listener is set), so that audits read only the few fires after it, and it
 * deletes old fires in batches, so that the ledger holds a bounded number of nodes however long the job runs. A pass
 * looks at a bounded number of fires, so a backlog after a long outage is worked off over several passes.
 */
public final class LedgerKeeper {

    /** Fires one pass reads: a few read requests, whatever the backlog. */
    static final int FIRES_PER_PASS = 256;

    /** Old fires retired together: retention waits until this many are due, or one is twice the retention old. */
    static final int RETIRE_BATCH = 4;

    private final FireLedger ledger;

    private final @Nullable LedgerCompletions completions;

    private final Duration retention;

    private final Duration catchUpHorizon;

    private final DueFires dueFires;

    /**
     * @param retention how long settled fires stay in the ledger, for operators and for late make-ups to see them
     * @param catchUpHorizon how far back missed fires are made up; unsettled fires older than this with no open claim
     *     are deleted, as nothing will make them up
     * @param dueFires the fires that came due: recorded before the watermark moves, so that it never passes a fire
     *     nobody claimed
     */
    public LedgerKeeper(
            FireLedger ledger,
            @Nullable LedgerCompletions completions,
            Duration retention,
            Duration catchUpHorizon,
            DueFires dueFires) {
        this.ledger = ledger;
        this.completions = completions;
        this.retention = retention;
        this.catchUpHorizon = catchUpHorizon;
        this.dueFires = dueFires;
    }

    /**
     * One pass.
     *
     * @return the ledger as the pass left it: the watermark it stored, and the fires it read (a few of the oldest may
     *     be gone since), for the audit that follows it to start from rather than read again
     */
    public FireLedger.Overview pass(Instant now, long sessionId) throws Exception {
        FireLedger.Overview overview = ledger.overview();
        Instant watermark = overview.watermark();
        Instant horizon = now.minus(catchUpHorizon);
        List<Instant> fires = overview.fires();
        List<Instant> recent = fires.stream()
                .filter(fireTime -> fireTime.isAfter(watermark))
                .limit(FIRES_PER_PASS)
                .toList();
        List<FireView> views = ledger.read(recent);
        List<FireView> passable = new ArrayList<>(views.size());
        Set<Long> live = null;
        for (FireView view : views) {
            if (completions != null && view.isSettled() && !LedgerCompletions.isCompleted(view)) {
                if (live == null) {
                    live = ledger.liveSessions();
                }
                completions.completeIfSettled(view, sessionId, live);
                // Passed over only once its completion is recorded, on a later pass.
                passable.add(new FireView(view.fireTime(), java.util.Map.of(), view.note(), view.noteVersion()));
            } else {
                passable.add(view);
            }
        }
        Instant through = LedgerRules.settledThrough(passable, watermark);
        // A scheduled fire before a settled one that nobody claimed was missed, by every instance: recorded before the
        // watermark passes it. Only fires before a settled one: a recent fire may still wait in its instance's queue.
        List<Instant> missed = dueFires.recordLate(
                watermark, fires, fireTime -> fireTime.isBefore(now.minus(LedgerRules.LATENESS)), through, horizon);
        if (!missed.isEmpty()) {
            List<FireView> withMissed = new ArrayList<>(passable);
            missed.forEach(fireTime -> withMissed.add(new FireView(fireTime, java.util.Map.of())));
            through = LedgerRules.settledThrough(withMissed, watermark);
        }
        if (through.isAfter(watermark)) {
            ledger.setWatermark(through);
        }
        Instant keepAfter = now.minus(retention);
        Instant settled = through;
        List<Instant> old = fires.stream()
                .filter(fireTime ->
                        fireTime.isBefore(keepAfter) && (!fireTime.isAfter(settled) || fireTime.isBefore(horizon)))
                .limit(FIRES_PER_PASS)
                .toList();
        // A few at a time: a job firing once per pass would otherwise cost a read and a delete every pass.
        boolean worthAPass =
                old.size() >= RETIRE_BATCH || (!old.isEmpty() && old.get(0).isBefore(keepAfter.minus(retention)));
        if (worthAPass) {
            List<FireView> oldViews = ledger.read(old);
            List<Instant> retire = LedgerRules.toRetire(oldViews, keepAfter, horizon);
            ledger.retire(oldViews.stream()
                    .filter(view -> retire.contains(view.fireTime()))
                    .toList());
        }
        return new FireLedger.Overview(through, fires);
    }
}
