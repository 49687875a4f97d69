package io.shardingjob.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.stereotype.Component;

/**
 * Where settled regions are written, fenced by the run's fencing token: a write carrying a lower token than one the
 * store has seen for its region is refused, so a run that was taken over (a copy paused longer than its ZooKeeper
 * session, then resumed) cannot overwrite its successor's result. A real service keeps the rule in the shared table it
 * writes, in the same statement as the write:
 *
 * <pre>{@code
 * UPDATE settlement SET total = :total, fence = :token WHERE region = :region AND fence <= :token
 * }</pre>
 *
 * <p>This stand-in keeps the highest token per region in memory, one store per copy: it shows the rule, and the
 * sample needs no database. See "Fencing token" in {@code docs/ledger.md}.
 */
@Component
class SettlementStore {

    private final Map<String, Long> fences = new ConcurrentHashMap<>();

    /**
     * Records the region as settled under the run's fencing token.
     *
     * @return false, writing nothing, when a run with a higher token wrote the region first: this run was taken over
     */
    boolean settle(String region, long fencingToken) {
        AtomicBoolean accepted = new AtomicBoolean();
        fences.compute(region, (key, fence) -> {
            if (fence == null || fence <= fencingToken) {
                accepted.set(true);
                return fencingToken;
            }
            return fence;
        });
        return accepted.get();
    }
}
