package io.shardingjob.boot.console;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A job's recent fires as the console shows them: the fire ledger's (every instance's claims, for as long as the ledger
 * retains a fire) joined with the execution log's (durations and errors; every instance's with the JDBC log, this
 * instance's otherwise), by fire time. For an item the ledger holds open (running, or waiting to be taken over), the
 * ledger's state wins, since the log only hears of an item when a run of it ends.
 */
final class FireHistory {

    /**
     * The sources in the order that names a fire: a manual fire stays manual though some of its items failed over, and
     * a follower's fire is named for its upstream's though some of its items were retried.
     */
    private static final List<ExecutionSource> NAMING_ORDER = List.of(
            ExecutionSource.MANUAL,
            ExecutionSource.NORMAL,
            ExecutionSource.UPSTREAM,
            ExecutionSource.MISFIRE,
            ExecutionSource.FAILOVER,
            ExecutionSource.RETRY);

    private static final Set<ItemState> FAILURES = EnumSet.of(ItemState.FAILED, ItemState.TIMED_OUT);

    private FireHistory() {}

    /** How one item of a fire stands, from its last run in the log or its claim in the ledger. */
    enum ItemState {
        SUCCESS,
        FAILED,
        TIMED_OUT,
        /** Its last run here was refused by a store, taken over by a later owner whose run the log here does not hold. */
        FENCED_OUT,
        RUNNING,
        /** An open claim nobody runs now: released, handed on, or its owner's session gone (failover will take it). */
        WAITING,
        /** Folded into a later run of the item, as the misfire policy {@code once} says. */
        COALESCED,
        SKIPPED
    }

    /** How a whole fire stands: the {@code data-outcome} of its mark in the overview's strip. */
    enum FireOutcome {
        SUCCESS,
        FAILED,
        TIMED_OUT,
        RUNNING,
        WAITING,
        SKIPPED
    }

    /**
     * One item of a fire.
     *
     * @param duration how long its last run took, {@code null} while it runs or when it did not run
     * @param error its last failure, {@code null} when none
     * @param fencingToken the token of the claim's current owner, {@code null} when the ledger no longer holds the fire
     * @param checkpoint the last checkpoint its runs saved, from which a run that continues it resumes; {@code null}
     *     when none was or the ledger no longer holds the fire
     */
    record Item(
            int item,
            String instance,
            ItemState state,
            ExecutionSource source,
            int retry,
            @Nullable Duration duration,
            @Nullable String error,
            @Nullable Long fencingToken,
            @Nullable String checkpoint) {}

    /**
     * One fire.
     *
     * @param inLedger whether the ledger still holds it (so that its items' claims are shown)
     */
    record Fire(Instant fireTime, ExecutionSource source, FireOutcome outcome, boolean inLedger, List<Item> items) {

        boolean failed() {
            return outcome == FireOutcome.FAILED || outcome == FireOutcome.TIMED_OUT;
        }

        /** Whether some of its items were runs of a missed fire (made up, or folded into a later run). */
        boolean madeUpAMiss() {
            return items.stream()
                    .anyMatch(item -> item.source() == ExecutionSource.MISFIRE || item.state() == ItemState.COALESCED);
        }
    }

    /** The newest {@code limit} fires of the ledger and the log together, newest first. */
    static List<Fire> of(List<LedgerFire> ledger, List<ExecutionRecord> log, int limit) {
        Map<Instant, LedgerFire> ledgerFires = new HashMap<>();
        for (LedgerFire fire : ledger) {
            ledgerFires.put(fire.fireTime(), fire);
        }
        // The log is newest first, so the first record of an item is its last run.
        Map<Instant, Map<Integer, ExecutionRecord>> lastRuns = new HashMap<>();
        for (ExecutionRecord record : log) {
            lastRuns.computeIfAbsent(record.fireTime(), time -> new LinkedHashMap<>())
                    .putIfAbsent(record.item(), record);
        }
        TreeSet<Instant> times = new TreeSet<>(Comparator.reverseOrder());
        times.addAll(ledgerFires.keySet());
        times.addAll(lastRuns.keySet());
        List<Fire> fires = new ArrayList<>();
        for (Instant time : times) {
            if (fires.size() == limit) {
                break;
            }
            fires.add(fire(time, ledgerFires.get(time), lastRuns.getOrDefault(time, Map.of())));
        }
        return fires;
    }

    private static Fire fire(Instant time, @Nullable LedgerFire claims, Map<Integer, ExecutionRecord> lastRuns) {
        Map<Integer, Item> items = new TreeMap<>();
        lastRuns.forEach((item, record) -> items.put(item, fromLog(record, null)));
        if (claims != null) {
            for (LedgerFire.Item claim : claims.items()) {
                ExecutionRecord record = lastRuns.get(claim.item());
                items.put(
                        claim.item(),
                        record == null || claim.state().isOpen() || startedAfter(claim, record) || fencedOut(record)
                                ? fromLedger(claim)
                                : fromLog(record, claim));
            }
        }
        List<Item> inOrder = List.copyOf(items.values());
        return new Fire(time, source(inOrder), outcome(inOrder), claims != null, inOrder);
    }

    /**
     * Whether the claim is of a run that started after the logged one ended: a re-run on another instance, which this
     * instance's in-memory log never heard of. The claim's run is the item's last.
     */
    private static boolean startedAfter(LedgerFire.Item claim, ExecutionRecord record) {
        return claim.started().isAfter(record.end());
    }

    /** A run fenced out was taken over: the item's claim is its new owner's, and says how the item stands. */
    private static boolean fencedOut(ExecutionRecord record) {
        return record.outcome() == ExecutionRecord.Outcome.FENCED_OUT;
    }

    /** @param claim the item's claim, when the ledger still holds its fire */
    private static Item fromLog(ExecutionRecord record, LedgerFire.@Nullable Item claim) {
        ItemState state = switch (record.outcome()) {
            case SUCCESS -> ItemState.SUCCESS;
            case FAILED -> ItemState.FAILED;
            case TIMED_OUT -> ItemState.TIMED_OUT;
            case FENCED_OUT -> ItemState.FENCED_OUT;
        };
        return new Item(
                record.item(),
                record.instance(),
                state,
                record.source(),
                record.retry(),
                record.duration(),
                record.failure(),
                claim == null ? null : claim.fencingToken(),
                claim == null ? null : claim.checkpoint());
    }

    private static Item fromLedger(LedgerFire.Item claim) {
        ItemState state = switch (claim.state()) {
            case RUNNING -> claim.live() ? ItemState.RUNNING : ItemState.WAITING;
            case RESERVED, RELEASED, HANDED_ON -> ItemState.WAITING;
            case DONE -> ItemState.SUCCESS;
            case FAILED -> ItemState.FAILED;
            case COALESCED -> ItemState.COALESCED;
            case SKIPPED -> ItemState.SKIPPED;
        };
        Instant ended = claim.ended();
        Duration duration =
                ended == null || claim.state() == ClaimState.SKIPPED ? null : Duration.between(claim.started(), ended);
        return new Item(
                claim.item(),
                claim.instanceId(),
                state,
                claim.source(),
                claim.retry(),
                duration,
                null,
                claim.fencingToken(),
                claim.checkpoint());
    }

    private static ExecutionSource source(List<Item> items) {
        for (ExecutionSource source : NAMING_ORDER) {
            if (items.stream().anyMatch(item -> item.source() == source)) {
                return source;
            }
        }
        return ExecutionSource.NORMAL;
    }

    private static FireOutcome outcome(List<Item> items) {
        if (items.isEmpty()) {
            return FireOutcome.WAITING;
        }
        if (has(items, ItemState.RUNNING)) {
            return FireOutcome.RUNNING;
        }
        if (has(items, ItemState.WAITING)) {
            return FireOutcome.WAITING;
        }
        if (has(items, ItemState.FAILED)) {
            return FireOutcome.FAILED;
        }
        if (has(items, ItemState.TIMED_OUT)) {
            return FireOutcome.TIMED_OUT;
        }
        if (items.stream().allMatch(item -> item.state() == ItemState.SKIPPED || item.state() == ItemState.COALESCED)) {
            return FireOutcome.SKIPPED;
        }
        return FireOutcome.SUCCESS;
    }

    private static boolean has(List<Item> items, ItemState state) {
        return items.stream().anyMatch(item -> item.state() == state);
    }

    /**
     * What an operator should look at in these fires (newest first): the latest finished fire failed, some of them
     * failed, a fire was missed and made up.
     */
    static List<String> warnings(List<Fire> fires) {
        List<String> warnings = new ArrayList<>();
        long failed = fires.stream().filter(Fire::failed).count();
        fires.stream()
                .filter(fire -> fire.outcome() != FireOutcome.RUNNING && fire.outcome() != FireOutcome.WAITING)
                .findFirst()
                .filter(Fire::failed)
                .ifPresentOrElse(
                        last -> warnings.add("the last fire (" + last.fireTime() + ") failed"
                                + (failed > 1 ? "; " + failed + " of the last " + fires.size() + " failed" : "")),
                        () -> {
                            if (failed > 0) {
                                warnings.add(failed + " of the last " + fires.size() + " fires failed");
                            }
                        });
        fires.stream()
                .filter(Fire::madeUpAMiss)
                .findFirst()
                .ifPresent(missed -> warnings.add("a fire was missed and made up (" + missed.fireTime() + ")"));
        return warnings;
    }

    /** Whether the item counts as a failure of its fire. */
    static boolean isFailure(ItemState state) {
        return FAILURES.contains(state);
    }
}
