package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the job's {@link MisfireListener} of the misfires the fire planner and the ledger audit decide on, each
 * item-fire once: an audit plans the make-up of a missed slot again until its claim is written (a later audit may come
 * first), and the make-up of a slot a fire found busy is the consequence of an overrun already reported, not a second
 * misfire. The slots reported are forgotten once the ledger's watermark passes their fire, and a fire at or before
 * that watermark is not reported again: it is settled, so an audit that still decides on it read the ledger before its
 * make-up's claims were written (audits do not wait for the claims of the fires they coalesce).
 */
public final class MisfireReports {

    private static final Logger log = LoggerFactory.getLogger(MisfireReports.class);

    /** Slots remembered at most: a long outage's backlog of a large job must not grow without bound. */
    private static final int REMEMBERED = 100_000;

    private final String jobName;
    private final MisfireListener listener;
    private final NavigableSet<Slot> reported = new ConcurrentSkipListSet<>();

    /** The watermark the reported slots were last forgotten through: every fire at or before it is settled. */
    private Instant settledThrough = Instant.MIN;

    public MisfireReports(String jobName, MisfireListener listener) {
        this.jobName = jobName;
        this.listener = listener;
    }

    /**
     * A fire found these items still running from an earlier fire and did not start them (each with why).
     *
     * @param report whether to tell the listener, or only to remember the slots, so that their make-up is not
     *     reported as missed either
     */
    void overran(Instant fireTime, Map<Integer, String> items, boolean report) {
        List<Integer> fresh = remember(fireTime, items.keySet());
        if (report && !fresh.isEmpty()) {
            String detail = String.join("; ", new TreeSet<>(items.values()));
            call(() -> listener.fireOverran(jobName, fireTime, fresh, detail));
        }
    }

    /** The audit decided what to do with slots nobody claimed in time: reports each fire once, with its items. */
    public void missed(MakeUpPlan plan, MisfirePolicy policy) {
        Map<Instant, Map<Integer, String>> fires = new TreeMap<>();
        plan.run().forEach(slot -> fate(fires, slot, "made up now (misfire policy " + policy + ")"));
        plan.coalesced()
                .forEach((slot, into) -> fate(
                        fires,
                        slot,
                        "coalesced into the make-up of the fire at " + into.fireTime() + " (misfire policy " + policy
                                + ")"));
        plan.skipped()
                .forEach(slot -> fate(
                        fires,
                        slot,
                        policy == MisfirePolicy.SKIP
                                ? "skipped (misfire policy " + policy + ")"
                                : "skipped: older than the catch-up horizon"));
        fires.forEach((fireTime, fates) -> {
            List<Integer> fresh = rememberUnsettled(fireTime, fates.keySet());
            if (fresh.isEmpty()) {
                return;
            }
            Map<String, List<Integer>> byFate = new TreeMap<>();
            fresh.forEach(item -> byFate.computeIfAbsent(fates.get(item), any -> new ArrayList<>())
                    .add(item));
            List<String> parts = new ArrayList<>();
            byFate.forEach(
                    (fate, items) -> parts.add((items.size() == 1 ? "item " : "items ") + join(items) + " " + fate));
            String detail = String.join("; ", parts);
            call(() -> listener.fireMissed(jobName, fireTime, fresh, detail));
        });
    }

    /** Forgets the slots of fires at or before the ledger's watermark: every item of them is settled. */
    public synchronized void forgetThrough(Instant watermark) {
        if (watermark.isAfter(settledThrough)) {
            settledThrough = watermark;
        }
        reported.headSet(new Slot(Integer.MAX_VALUE, watermark), true).clear();
    }

    private static void fate(Map<Instant, Map<Integer, String>> fires, Slot slot, String fate) {
        fires.computeIfAbsent(slot.fireTime(), any -> new TreeMap<>()).put(slot.item(), fate);
    }

    /** {@link #remember}, but none of a fire at or before the watermark last forgotten through: it is settled. */
    private synchronized List<Integer> rememberUnsettled(Instant fireTime, Collection<Integer> items) {
        return fireTime.isAfter(settledThrough) ? remember(fireTime, items) : List.of();
    }

    /** The items not reported before, in order, now remembered as reported. */
    private List<Integer> remember(Instant fireTime, Collection<Integer> items) {
        List<Integer> fresh = items.stream()
                .sorted()
                .filter(item -> reported.add(new Slot(item, fireTime)))
                .toList();
        while (reported.size() > REMEMBERED) {
            reported.pollFirst();
        }
        return fresh;
    }

    private static String join(List<Integer> items) {
        return items.size() == 1 ? items.get(0).toString() : items.toString();
    }

    private void call(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: a misfire listener failed", jobName, ex);
        }
    }
}
