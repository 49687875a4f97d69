package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.requests.ClientRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Splits the operations of one ledger request into requests ZooKeeper accepts: consecutive runs, in order, each as
 * long as {@link ClientRequests#MAX_WRITE_BYTES} allows. One rule for every request the ledger may have to split (the
 * claims of a group commit, the deletions of retired fires), so that none can exceed {@code jute.maxbuffer} by a
 * batching of its own.
 */
final class ByteBatches {

    private ByteBatches() {}

    static <T> List<List<T>> split(List<T> elements, ToIntFunction<? super T> bytes) {
        return split(elements, bytes, ClientRequests.MAX_WRITE_BYTES);
    }

    /**
     * The elements in consecutive runs, each ending where its next element would take it over {@code limit} bytes. An
     * element larger than the limit alone makes a run of its own (ZooKeeper judges it, not this); no run is empty.
     */
    static <T> List<List<T>> split(List<T> elements, ToIntFunction<? super T> bytes, int limit) {
        List<List<T>> runs = new ArrayList<>();
        List<T> run = new ArrayList<>();
        long size = 0;
        for (T element : elements) {
            int added = bytes.applyAsInt(element);
            if (!run.isEmpty() && size + added > limit) {
                runs.add(List.copyOf(run));
                run = new ArrayList<>();
                size = 0;
            }
            run.add(element);
            size += added;
        }
        if (!run.isEmpty()) {
            runs.add(List.copyOf(run));
        }
        return runs;
    }
}
