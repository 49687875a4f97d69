package io.shardingjob.core.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;

/**
 * Counts the ZooKeeper requests one Curator client sends, by operation, through Curator's tracer: every foreground and
 * background operation of the framework and its recipes (caches, latches) reports one trace per request it completes,
 * a multi-operation counting once. Session pings are not operations and are not counted.
 */
public final class RequestCounter extends AdvancedTracerDriver {

    private static final String BACKGROUND = "/background";

    private static final String FOREGROUND = "/foreground";

    /** With {@code -Drequests.by-path=true}, requests are counted by operation and path too, digits read as #. */
    private static final boolean BY_PATH = Boolean.getBoolean("requests.by-path");

    private final Map<String, LongAdder> byOperation = new ConcurrentHashMap<>();

    private final Map<String, LongAdder> byPath = new ConcurrentHashMap<>();

    /** Counts from now on what {@code client} sends. */
    public static RequestCounter attachTo(CuratorFramework client) {
        RequestCounter counter = new RequestCounter();
        client.getZookeeperClient().setTracerDriver(counter);
        return counter;
    }

    @Override
    public void addTrace(OperationTrace trace) {
        byOperation
                .computeIfAbsent(operation(trace.getName()), name -> new LongAdder())
                .increment();
        if (BY_PATH) {
            String path = trace.getPath() == null ? "?" : trace.getPath().replaceAll("[0-9]+", "#");
            byPath.computeIfAbsent(operation(trace.getName()) + " " + path, name -> new LongAdder())
                    .increment();
        }
    }

    /** Forgets the counts by path so far, so that {@link #mostFrequentPaths} tells of what follows. */
    public void clearPaths() {
        byPath.clear();
    }

    /**
     * The {@code limit} most frequent operations and paths so far, most frequent first; empty unless
     * {@code -Drequests.by-path=true}: what to look at when a benchmark's counts are higher than expected.
     */
    public Map<String, Long> mostFrequentPaths(int limit) {
        Map<String, Long> top = new java.util.LinkedHashMap<>();
        byPath.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
                .limit(limit)
                .forEach(entry -> top.put(entry.getKey(), entry.getValue().sum()));
        return top;
    }

    @Override
    public void addEvent(EventTrace trace) {
        // Connection events are not requests.
    }

    /**
     * Waits until no request was sent for {@code quiet}, at most two minutes: what a step set off (a leader's reshard,
     * the caches' refreshes) is then counted with it.
     */
    public void awaitQuiet(Duration quiet) {
        long[] last = {-1};
        long[] since = {System.nanoTime()};
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    long total = counts().total();
                    if (total != last[0]) {
                        last[0] = total;
                        since[0] = System.nanoTime();
                        return false;
                    }
                    return System.nanoTime() - since[0] > quiet.toNanos();
                });
    }

    /** What was counted so far. */
    public Counts counts() {
        Map<String, Long> copy = new TreeMap<>();
        byOperation.forEach((name, count) -> copy.put(name, count.sum()));
        return new Counts(copy);
    }

    /**
     * {@code GetDataBuilderImpl-Background} is {@code GetData/background}: caches and recipes work in the background,
     * the calls a fire makes itself in the foreground.
     */
    private static String operation(String traceName) {
        int dash = traceName.indexOf('-');
        String builder = dash < 0 ? traceName : traceName.substring(0, dash);
        String operation = builder.replace("BuilderImpl", "").replace("CuratorMultiTransactionImpl", "Multi");
        return operation + (traceName.contains("-Background") ? BACKGROUND : FOREGROUND);
    }

    /** Request counts by operation. */
    public record Counts(Map<String, Long> byOperation) {

        public static final Counts NONE = new Counts(Map.of());

        public long reads() {
            return sum("GetData", "GetChildren", "Exists", "GetACL", "GetConfig", "MultiRead");
        }

        public long writes() {
            return sum("Create", "Delete", "SetData", "Multi", "SetACL");
        }

        public long total() {
            return byOperation.values().stream().mapToLong(Long::longValue).sum();
        }

        /** What was counted after {@code earlier}, a snapshot of the same counter. */
        public Counts since(Counts earlier) {
            Map<String, Long> difference = new TreeMap<>();
            byOperation.forEach((name, count) -> {
                long delta = count - earlier.byOperation.getOrDefault(name, 0L);
                if (delta != 0) {
                    difference.put(name, delta);
                }
            });
            return new Counts(difference);
        }

        public Counts plus(Counts other) {
            Map<String, Long> sum = new TreeMap<>(byOperation);
            other.byOperation.forEach((name, count) -> sum.merge(name, count, Long::sum));
            return new Counts(sum);
        }

        /** Only the fire ledger's requests, which it reports to Curator's tracer under names starting with Ledger. */
        public Counts ledger() {
            Map<String, Long> kept = new TreeMap<>();
            byOperation.forEach((name, count) -> {
                if (name.startsWith("Ledger")) {
                    kept.put(name, count);
                }
            });
            return new Counts(kept);
        }

        /** Only what the callers' own threads waited for. */
        public Counts foreground() {
            return filtered(FOREGROUND);
        }

        /** Only what caches and recipes sent in the background. */
        public Counts background() {
            return filtered(BACKGROUND);
        }

        private Counts filtered(String mode) {
            Map<String, Long> kept = new TreeMap<>();
            byOperation.forEach((name, count) -> {
                if (name.endsWith(mode)) {
                    kept.put(name, count);
                }
            });
            return new Counts(kept);
        }

        private long sum(String... operations) {
            long sum = 0;
            for (String operation : operations) {
                sum += byOperation.getOrDefault(operation + FOREGROUND, 0L);
                sum += byOperation.getOrDefault(operation + BACKGROUND, 0L);
            }
            return sum;
        }

        @Override
        public String toString() {
            return byOperation.toString();
        }
    }
}
