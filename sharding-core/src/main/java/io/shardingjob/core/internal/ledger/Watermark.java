package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The data of the ledger node: the watermark ({@code settled=<fireMillis>}), at or before which every fire is settled
 * but those the keeper passed with a claim still open ({@code open=<fireMillis>,…}, a line of its own, absent when
 * there are none). An item that hangs so keeps its own fire open, not every fire after it: audits read the open fires
 * and those after the watermark, and the settled ones in between are retired.
 */
record Watermark(Instant settled, SortedSet<Instant> stillOpen) {

    private static final String SETTLED = "settled=";
    private static final String OPEN = "open=";

    Watermark {
        stillOpen = Collections.unmodifiableSortedSet(new TreeSet<>(stillOpen));
    }

    Watermark(Instant settled, Collection<Instant> stillOpen) {
        this(settled, new TreeSet<>(stillOpen));
    }

    /**
     * The watermark after {@code previous}: it passes each settled fire, and each fire that awaits an upstream or is
     * older than {@code openBefore} with a claim for every due item (a run that outlived the retention, an item that
     * hangs), which it lists as still open; it stops at the first fire that is neither (an item nobody claimed yet is
     * made up by an audit first). A still-open fire stays listed until a read finds it settled.
     *
     * @param fires the fires read: those after {@code previous.settled()}, in any order, and its still-open ones
     * @param openBefore fires before it may be passed open; {@link Instant#MIN} passes settled fires only
     */
    static Watermark advance(
            Watermark previous, Collection<FireView> fires, ToIntFunction<Instant> dueCount, Instant openBefore) {
        NavigableMap<Instant, FireView> read = new TreeMap<>();
        fires.forEach(fire -> read.put(fire.fireTime(), fire));
        SortedSet<Instant> open = new TreeSet<>();
        for (Instant fireTime : previous.stillOpen) {
            FireView view = read.get(fireTime);
            if (view == null || !view.isSettled(dueCount.applyAsInt(fireTime))) {
                open.add(fireTime);
            }
        }
        Instant through = previous.settled;
        for (FireView fire : read.tailMap(previous.settled, false).values()) {
            int due = dueCount.applyAsInt(fire.fireTime());
            if (fire.isSettled(due)) {
                through = fire.fireTime();
            } else if (fire.origin().isAwaiting() || (fire.fireTime().isBefore(openBefore) && fire.isClaimed(due))) {
                // A fire still waiting for an upstream holds nothing to make up yet, and must not hold every later
                // fire back: listed, it is read until it settles, and never retired while it waits.
                open.add(fire.fireTime());
                through = fire.fireTime();
            } else {
                break;
            }
        }
        return new Watermark(through, open);
    }

    /** This watermark with a fire added to its still-open ones: audits read it again until it settles. */
    Watermark listingOpen(Instant fireTime) {
        SortedSet<Instant> open = new TreeSet<>(stillOpen);
        open.add(fireTime);
        return new Watermark(settled, open);
    }

    /** The node's data as stored; a node without data (or of an older version, one line) reads as such. */
    static Watermark decode(byte @Nullable [] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        Instant settled = line(text, SETTLED)
                .map(value -> Instant.ofEpochMilli(Long.parseLong(value)))
                .orElse(Instant.EPOCH);
        SortedSet<Instant> open = new TreeSet<>();
        line(text, OPEN)
                .ifPresent(value -> Arrays.stream(value.split(","))
                        .filter(fire -> !fire.isBlank())
                        .forEach(fire -> open.add(Instant.ofEpochMilli(Long.parseLong(fire.trim())))));
        return new Watermark(settled, open);
    }

    byte[] encode() {
        StringBuilder text = new StringBuilder(SETTLED).append(settled.toEpochMilli());
        if (!stillOpen.isEmpty()) {
            text.append('\n')
                    .append(OPEN)
                    .append(stillOpen.stream()
                            .map(fire -> Long.toString(fire.toEpochMilli()))
                            .collect(Collectors.joining(",")));
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Optional<String> line(String text, String prefix) {
        return text.lines()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()).trim())
                .findFirst();
    }
}
