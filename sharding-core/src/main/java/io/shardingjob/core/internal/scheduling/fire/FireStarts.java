package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The runs of one fire handed to the item executor, in the order they were handed on, and which of their starts were
 * written ahead of them ({@link StartBatch}): the run that leaves the queue first writes, with its own start, the
 * starts of the ones behind it, and each of those, as it leaves, takes what came of its start from here.
 */
final class FireStarts {

    /** What came of a start written ahead: the claim as written when {@code began} is {@code STARTED}. */
    record Ahead(RunStarts.Began began, @Nullable Claim written) {}

    /** A run leaving the queue: what came of its start written ahead (null when none was), and whether it is the last. */
    record Leaving(@Nullable CompletableFuture<Ahead> ahead, boolean last) {}

    private final List<Claim> order;

    /** How the fire was asked for: whether its runs were due asks it. */
    private final FireOrigin origin;

    private final Map<Integer, Reservation> reservations;
    private final Map<Integer, Integer> positions = new HashMap<>();

    /** Whether each run's start was written or asked for, or the run left; guarded by this. */
    private final boolean[] taken;

    /** The starts written (or being written) ahead of runs that did not leave yet; guarded by this. */
    private final Map<Integer, CompletableFuture<Ahead>> ahead = new HashMap<>();

    private int firstUntaken;
    private int untaken;
    private int toLeave;

    FireStarts(List<Claim> order, Map<Integer, Reservation> reservations, FireOrigin origin) {
        this.order = order;
        this.origin = origin;
        this.reservations = reservations;
        this.taken = new boolean[order.size()];
        for (int i = 0; i < order.size(); i++) {
            positions.put(order.get(i).item(), i);
        }
        this.untaken = order.size();
        this.toLeave = order.size();
    }

    FireOrigin origin() {
        return origin;
    }

    synchronized Leaving leave(int item) {
        toLeave = Math.max(0, toLeave - 1);
        CompletableFuture<Ahead> written = ahead.remove(item);
        if (written == null) {
            take(positions.getOrDefault(item, -1));
        }
        return new Leaving(written, toLeave == 0);
    }

    /**
     * Takes the next runs, in the order they wait in the queue, whose starts are neither written nor asked for: their
     * starts are to be written ahead now, and each gets the future its run takes when it leaves.
     */
    synchronized Map<Claim, CompletableFuture<Ahead>> takeAhead(int count) {
        Map<Claim, CompletableFuture<Ahead>> next = new LinkedHashMap<>();
        while (next.size() < count && firstUntaken < order.size()) {
            Claim claim = order.get(firstUntaken);
            take(firstUntaken);
            CompletableFuture<Ahead> answer = new CompletableFuture<>();
            ahead.put(claim.item(), answer);
            next.put(claim, answer);
        }
        return next;
    }

    private void take(int position) {
        if (position >= 0 && !taken[position]) {
            taken[position] = true;
            untaken--;
        }
        while (firstUntaken < order.size() && taken[firstUntaken]) {
            firstUntaken++;
        }
    }

    /** The runs whose starts are neither written nor asked for, and that did not leave. */
    synchronized int untaken() {
        return untaken;
    }

    /** The runs whose starts were written or asked for ahead, and that did not leave yet. */
    synchronized int writtenAhead() {
        return ahead.size();
    }

    Reservation reservation(int item) {
        return reservations.get(item);
    }
}
