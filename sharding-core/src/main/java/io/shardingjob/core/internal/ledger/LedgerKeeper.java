package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The leader's upkeep of the ledger, run with its periodic reconcile: it moves the watermark past the fires that are
 * settled (and completed, when something listens), so that audits read only the few fires after it, and past those
 * whose open claims outlived the retention, which it lists with the watermark ({@link Watermark}), so that an item that
 * hangs keeps only its own fire open; and it deletes old fires in batches ({@link FireRetirement}), so that the ledger
 * stays bounded however long the job runs. A pass looks at a bounded number of fires: a backlog after a long outage is
 * worked off over several passes.
 */
public final class LedgerKeeper {

    /** Fires one pass reads: a few read requests, whatever the backlog. */
    static final int FIRES_PER_PASS = 256;

    /**
     * What the keeper uses of the ledger: its reads and the live sessions (a completer that died is taken over), and
     * its own writes (the watermark, the retirement, the fires that wait for an upstream in vain given up).
     */
    public record Ledger(LedgerReads reads, LiveSessions sessions, KeeperWrites writes, AwaitedUpstreams awaited) {}

    /**
     * How long fires matter.
     *
     * @param retention how long settled fires stay in the ledger, for operators and for late make-ups to see them
     * @param catchUp how far back missed fires are made up; unsettled fires older than this with no open claim are
     *     deleted, as nothing will make them up, but a follower's ({@link FireOrigin#agesOut})
     */
    public record Horizons(Duration retention, Duration catchUp) {}

    private final Ledger ledger;
    private final @Nullable LedgerCompletions completions;
    private final Horizons horizons;
    private final FireRetirement retirement;
    private final DueFires dueFires;
    private final Executor executor;
    private final RecordedEnds recordedEnds;
    private final Predicate<Instant> openHere;
    private volatile boolean behind;

    /**
     * @param dueFires the fires that came due: recorded before the watermark moves, so that it never passes a fire
     *     nobody claimed
     * @param executor where a pass goes on after ZooKeeper answered it (and completion listeners run): never
     *     ZooKeeper's event thread
     * @param recordedEnds the ends this instance recorded: a fire whose every item ended here is not read
     * @param openHere whether this instance holds a claim of the fire that has not ended: the fire is not settled, and
     *     neither it nor a later one is read
     */
    public LedgerKeeper(
            Ledger ledger,
            @Nullable LedgerCompletions completions,
            Horizons horizons,
            DueFires dueFires,
            Executor executor,
            RecordedEnds recordedEnds,
            Predicate<Instant> openHere) {
        this.ledger = ledger;
        this.completions = completions;
        this.horizons = horizons;
        this.retirement = new FireRetirement(ledger.reads(), ledger.writes(), horizons);
        this.dueFires = dueFires;
        this.executor = executor;
        this.recordedEnds = recordedEnds;
        this.openHere = openHere;
    }

    /**
     * One pass, without a thread waiting for ZooKeeper's answers.
     *
     * @return the ledger as the pass left it, once it did: the watermark it stored, and the fires it read (a few of the
     *     oldest may be gone since), for the audit that follows it to start from rather than read again
     */
    public CompletableFuture<LedgerOverview> pass(Instant now, long sessionId) {
        DueRule due = dueFires.rule();
        return ledger.reads()
                .overviewAsync()
                .thenComposeAsync(
                        overview -> {
                            // Fires to come hold only claims made ahead and nodes created ahead: none is settled.
                            // Fires before the job's (re)definition are an earlier job's: not read, not waited for.
                            List<Instant> unread = overview.fires().stream()
                                    .filter(fireTime -> fireTime.isAfter(overview.watermark())
                                            && !fireTime.isAfter(now)
                                            && !fireTime.isBefore(due.start()))
                                    .limit(FIRES_PER_PASS + 1L)
                                    .toList();
                            boolean readBehind = unread.size() > FIRES_PER_PASS;
                            List<Instant> recent = readBehind ? unread.subList(0, FIRES_PER_PASS) : unread;
                            Instant openBefore = now.minus(horizons.retention());
                            return read(recent, overview.stillOpen(), openBefore)
                                    .thenCompose(views ->
                                            ledger.awaited().giveUpStaleAsync(views, now.minus(horizons.catchUp())))
                                    .thenComposeAsync(views -> complete(views, sessionId, due), executor)
                                    .thenComposeAsync(
                                            passable -> moveWatermark(overview, passable, now, openBefore, due),
                                            executor)
                                    .thenCompose(kept -> retirement
                                            .retire(overview.fires(), kept.mark(), kept.version(), now)
                                            .thenApply(retired -> {
                                                boolean progressed = retired.fires() > 0
                                                        || kept.mark().settled().isAfter(overview.watermark());
                                                behind = (readBehind || retired.more()) && progressed;
                                                recordedEnds.forgetThrough(
                                                        kept.mark().settled());
                                                // With the missed fires it recorded: the audit that follows makes
                                                // them up now, not after the next pass.
                                                return new LedgerOverview(
                                                        kept.mark().settled(),
                                                        withRecorded(overview.fires(), kept.missed()),
                                                        kept.mark().stillOpen(),
                                                        -1);
                                            }));
                        },
                        executor);
    }

    /**
     * Whether the last pass left fires to read or to retire for the next one (more were due than {@value
     * #FIRES_PER_PASS}), and moved the watermark or retired some: the next pass would make progress too, whereas a
     * backlog that cannot move (fires waiting for their make-ups) is not read again and again. A job fired faster than
     * that many fires a pass (by a program, not a cron, which fires at most once a second) would otherwise grow its
     * ledger with every pass; its runtime passes again at once instead.
     */
    public boolean isBehind() {
        return behind;
    }

    /** Whether this job's fires are completed: something listens, or a job follows this one. */
    private boolean completes() {
        LedgerCompletions completing = completions;
        return completing != null && completing.isActive();
    }

    /**
     * The fires as a read shows them, up to the first one still running here that the watermark may not pass open yet;
     * a fire whose every item ended here is known without one. The still-open fires are read again, to see them
     * settled. With a completion listener every fire is read: the listener needs each settled fire's note.
     */
    private CompletableFuture<List<FireView>> read(
            List<Instant> recent, Collection<Instant> stillOpen, Instant openBefore) {
        Map<Instant, FireView> known = new TreeMap<>();
        if (!completes()) {
            // The watermark stops at the first fire still running here: what comes after it waits for the next pass.
            recent = recent.stream()
                    .takeWhile(fireTime -> !openHere.test(fireTime) || fireTime.isBefore(openBefore))
                    .toList();
            // A still-open fire is read whatever ended here: an operator's re-run may have reopened it since.
            recent.stream()
                    .filter(fireTime -> !stillOpen.contains(fireTime))
                    .forEach(fireTime ->
                            recordedEnds.settledHere(fireTime).ifPresent(view -> known.put(fireTime, view)));
        }
        List<Instant> unknown = Stream.concat(stillOpen.stream(), recent.stream())
                .filter(fireTime -> !known.containsKey(fireTime))
                .distinct()
                .toList();
        return ledger.reads().readAsync(unknown).thenApply(read -> {
            // A node created ahead for a fire the schedule no longer has is no fire: the watermark passes it.
            read.stream()
                    .filter(view -> !view.isAheadOnly() || dueFires.cameDue(view.fireTime()))
                    .forEach(view -> known.put(view.fireTime(), view));
            return List.copyOf(known.values());
        });
    }

    /**
     * Completes the settled fires not completed yet; such a fire is passed over only on a later pass, once its
     * completion is recorded.
     *
     * @return the fires as the watermark may pass them
     */
    private CompletableFuture<List<FireView>> complete(List<FireView> views, long sessionId, DueRule due) {
        LedgerCompletions completing = completions;
        List<FireView> toComplete = completing == null || !completing.isActive()
                ? List.of()
                : views.stream()
                        .filter(view -> view.isSettled(due.dueCount(view.fireTime()))
                                && !LedgerCompletions.isCompletedNote(view.note()))
                        .toList();
        if (toComplete.isEmpty()) {
            return CompletableFuture.completedFuture(views);
        }
        List<FireView> passable = views.stream()
                .map(view -> toComplete.contains(view)
                        ? new FireView(view.fireTime(), Map.of(), view.note(), view.noteVersion(), FireOrigin.SCHEDULED)
                        : view)
                .toList();
        return ledger.sessions()
                .liveInstancesAsync()
                .thenComposeAsync(
                        instances -> {
                            Set<Long> live = Set.copyOf(instances.values());
                            CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
                            for (FireView view : toComplete) {
                                done = done.thenCompose(previous -> completing.completeIfSettled(
                                        view, due.dueCount(view.fireTime()), sessionId, live, executor));
                            }
                            return done.thenApply(completed -> passable);
                        },
                        executor);
    }

    /**
     * Records the missed fires before a passable one and moves the watermark past the settled ones, and past the ones
     * whose open claims outlived the retention, which it lists as still open ({@link Watermark#advance}).
     */
    private CompletableFuture<Kept> moveWatermark(
            LedgerOverview overview, List<FireView> passable, Instant now, Instant openBefore, DueRule due) {
        Watermark previous = new Watermark(overview.watermark(), overview.stillOpen());
        // A fire's items beyond a count lowered since are not due: they have no owner left to settle them.
        Watermark advanced = Watermark.advance(previous, passable, due::dueCount, openBefore);
        // A scheduled fire before a passable one that nobody claimed was missed, by every instance: recorded before the
        // watermark passes it. Only fires before a passable one: a recent fire may still wait in its instance's queue.
        return dueFires.recordLate(
                        previous.settled(),
                        overview.fires(),
                        fireTime -> fireTime.isBefore(now.minus(LedgerRules.LATENESS)),
                        advanced.settled(),
                        now.minus(horizons.catchUp()))
                .thenCompose(missed -> {
                    Watermark next = advanced;
                    if (!missed.isEmpty()) {
                        List<FireView> withMissed = new ArrayList<>(passable);
                        missed.forEach(fireTime -> withMissed.add(new FireView(fireTime, Map.of())));
                        next = Watermark.advance(previous, withMissed, due::dueCount, openBefore);
                    }
                    if (next.equals(previous)) {
                        return CompletableFuture.completedFuture(new Kept(next, missed, overview.version()));
                    }
                    // At the version read: a re-run that listed its fire since must not be dropped from the list. Lost,
                    // the watermark stays as the re-run left it, and this pass deletes nothing.
                    Watermark moving = next;
                    return ledger.writes()
                            .setWatermarkAsync(next.settled(), next.stillOpen(), overview.version())
                            .thenApply(version -> version >= 0
                                    ? new Kept(moving, missed, version)
                                    : new Kept(previous, missed, FireRetirement.CHANGED));
                });
    }

    /**
     * The watermark a pass left, the missed fires it recorded, and the ledger node's version then (what a deletion
     * checks), or {@link FireRetirement#CHANGED} when the node changed under the pass.
     */
    private record Kept(Watermark mark, List<Instant> missed, int version) {}

    private static List<Instant> withRecorded(List<Instant> fires, List<Instant> recorded) {
        return Stream.concat(fires.stream(), recorded.stream())
                .distinct()
                .sorted()
                .toList();
    }
}
