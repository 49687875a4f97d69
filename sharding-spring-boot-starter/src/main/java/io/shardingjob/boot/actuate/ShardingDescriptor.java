package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.boot.ShardingOperations;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * {@code GET /actuator/sharding}: where an operator reads whether this instance is connected, whether its clock is
 * within bounds, and a {@link JobSummary} of each of its jobs.
 *
 * @param clockSkew how far this instance's clock is from ZooKeeper's, {@code null} until measured
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ShardingDescriptor(
        String instanceId,
        boolean connected,
        List<JobSummary> jobs,
        @Nullable ClockSkewDescriptor clockSkew) implements OperationResponseBody {

    static ShardingDescriptor of(ShardingOperations operations) {
        Map<String, List<String>> followers = operations.followers();
        return new ShardingDescriptor(
                operations.instanceId(),
                operations.isConnected(),
                operations.jobs().stream()
                        .map(job -> JobSummary.of(job, followers))
                        .toList(),
                operations.clockSkew().map(ClockSkewDescriptor::of).orElse(null));
    }
}
