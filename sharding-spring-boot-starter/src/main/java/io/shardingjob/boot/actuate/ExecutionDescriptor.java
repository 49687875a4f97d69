package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.boot.ExecutionRecord;
import org.jspecify.annotations.Nullable;

/**
 * One item execution on this instance, in {@link JobDescriptor#recentExecutions()} and {@link ExecutionsDescriptor}:
 * where an operator reads when an item ran, for which fire, why it started ({@code source}) and how it ended
 * ({@code outcome}, {@code failure}). Times are ISO-8601.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ExecutionDescriptor(
        int item,
        String instance,
        long epoch,
        String fireTime,
        String start,
        String end,
        String outcome,
        String source,
        @Nullable String failure,
        int shardingTotalCount,
        String parameter,
        int retry,
        String jobParameter) {

    static ExecutionDescriptor of(ExecutionRecord record) {
        return new ExecutionDescriptor(
                record.item(),
                record.instance(),
                record.epoch(),
                record.fireTime().toString(),
                record.start().toString(),
                record.end().toString(),
                record.outcome().name(),
                record.source().name(),
                record.failure(),
                record.shardingTotalCount(),
                record.parameter(),
                record.retry(),
                record.jobParameter());
    }
}
