package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The answer to a write operation ({@code POST /actuator/sharding/...}), and to a read the endpoint refuses: where an
 * operator reads what was asked of which target and what came of it; the HTTP status tells success (200) from 400,
 * 404, 409 and 503.
 *
 * @param fireTime the fire a {@code trigger} started (every run's fire time); absent from the other answers
 * @param input the input a {@code 400} refused ({@code item}, {@code instanceId}, {@code jobParameter},
 *     {@code cron}, ...: {@link io.shardingjob.core.operation.InvalidOperationException#input()}); absent from the
 *     other answers
 */
public record ActionResult(
        String job,
        String target,
        String action,
        String result,

        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Instant fireTime,

        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String input)
        implements OperationResponseBody {

    public ActionResult(String job, String target, String action, String result) {
        this(job, target, action, result, null, null);
    }

    public ActionResult(String job, String target, String action, String result, @Nullable Instant fireTime) {
        this(job, target, action, result, fireTime, null);
    }
}
