package io.shardingjob.core.drills;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What the judge's table tests build a worker's record from: its lines, in order, and the instants they name. */
final class WorkerLines {

    private WorkerLines() {}

    /** The lines of several runs and events, one after another, as a worker would have printed them. */
    @SafeVarargs
    static List<String> lines(List<String>... parts) {
        List<String> lines = new ArrayList<>();
        for (List<String> part : parts) {
            lines.addAll(part);
        }
        return lines;
    }

    static Instant at(long millis) {
        return Instant.ofEpochMilli(millis);
    }
}
