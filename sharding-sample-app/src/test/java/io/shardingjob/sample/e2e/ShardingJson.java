package io.shardingjob.sample.e2e;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The parts of {@code /actuator/sharding} the end-to-end tests read. */
final class ShardingJson {

    private ShardingJson() {}

    record Summary(String instanceId, boolean connected, List<JobSummary> jobs) {

        JobSummary job(String name) {
            return jobs.stream()
                    .filter(job -> job.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no job " + name + " in " + this));
        }
    }

    record JobSummary(
            String name, @Nullable String leader, long epoch, boolean reshardPending, List<Integer> localItems) {}

    record Job(
            String name,
            @Nullable String leader,
            long epoch,
            int shardingTotalCount,
            boolean reshardPending,
            List<Instance> instances,
            List<Item> items,
            List<Execution> recentExecutions) {}

    record Instance(String id, boolean enabled, List<Integer> items) {}

    record Item(int item, String parameter, @Nullable String instance, boolean running) {}

    record Execution(
            int item,
            String instance,
            long epoch,
            Instant fireTime,
            Instant start,
            Instant end,
            String outcome,
            String source,
            @Nullable String failure,
            @Nullable String jobParameter) {

        boolean overlaps(Execution other) {
            return start.isBefore(other.end) && other.start.isBefore(end);
        }
    }
}
