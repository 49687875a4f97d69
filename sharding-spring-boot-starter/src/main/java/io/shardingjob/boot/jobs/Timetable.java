package io.shardingjob.boot.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Every scheduled entry's next time, sorted by time: the pure part of {@link FireTimer}'s {@link TimerAlarm}, with no
 * clock and no thread. An entry is at one time at most: putting it again moves it, so a cron change needs no removal
 * first. The entries due at one instant are kept in the order they were put there and are taken together.
 *
 * <p>Not thread-safe: {@link TimerAlarm} guards it with its lock.
 *
 * @param <E> an entry, compared by identity or its own {@code equals}
 */
final class Timetable<E> {

    private final NavigableMap<Instant, Set<E>> byTime = new TreeMap<>();

    private final Map<E, Instant> timeOf = new HashMap<>();

    /** Puts the entry at {@code time}, moving it from the time it had. */
    void put(E entry, Instant time) {
        remove(entry);
        byTime.computeIfAbsent(time, key -> new LinkedHashSet<>()).add(entry);
        timeOf.put(entry, time);
    }

    /**
     * Takes the entry out.
     *
     * @return whether it was there
     */
    boolean remove(E entry) {
        Instant time = timeOf.remove(entry);
        if (time == null) {
            return false;
        }
        Set<E> at = byTime.get(time);
        at.remove(entry);
        if (at.isEmpty()) {
            byTime.remove(time);
        }
        return true;
    }

    /** The time the entry is at, or null when it is not here. */
    @Nullable
    Instant timeOf(E entry) {
        return timeOf.get(entry);
    }

    /** The earliest time of any entry, or null when there is none. */
    @Nullable
    Instant earliest() {
        return byTime.isEmpty() ? null : byTime.firstKey();
    }

    /** Takes out every entry whose time is {@code now} or before, the earliest first. */
    List<Due<E>> takeDue(Instant now) {
        List<Due<E>> due = new ArrayList<>();
        Iterator<Map.Entry<Instant, Set<E>>> times =
                byTime.headMap(now, true).entrySet().iterator();
        while (times.hasNext()) {
            Map.Entry<Instant, Set<E>> at = times.next();
            for (E entry : at.getValue()) {
                due.add(new Due<>(entry, at.getKey()));
                timeOf.remove(entry);
            }
            times.remove();
        }
        return due;
    }

    int size() {
        return timeOf.size();
    }

    /** An entry taken out as due, with the time it was due at. */
    record Due<E>(E entry, Instant time) {}
}
