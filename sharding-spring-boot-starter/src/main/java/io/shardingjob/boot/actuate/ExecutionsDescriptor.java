package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.boot.ExecutionPage;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * {@code GET /actuator/sharding/{job}/executions}: where an operator pages through a job's execution log, newest first,
 * and reads whether the database log keeps up with its writes.
 *
 * @param store {@code memory} or {@code jdbc}
 * @param writes the database log's counts since start-up, {@code null} for the in-memory log
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ExecutionsDescriptor(
        String job,
        int page,
        int size,
        String store,
        List<ExecutionDescriptor> executions,
        ExecutionPage.@Nullable Writes writes)
        implements OperationResponseBody {

    static ExecutionsDescriptor of(ExecutionPage page) {
        return new ExecutionsDescriptor(
                page.job(),
                page.page(),
                page.size(),
                page.store(),
                page.executions().stream().map(ExecutionDescriptor::of).toList(),
                page.writes());
    }
}
