package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.ShardingContext;
import java.util.function.Consumer;
import org.springframework.http.HttpHeaders;

/**
 * The headers that carry a run's fencing token on a call to another service, read there by {@link FencingTokenFilter}:
 * the job, the item and the token, which together say "the owner of this job's item, as of this token".
 */
public final class FencingHeaders {

    /** The job whose run makes the call. */
    public static final String JOB = "Sharding-Job";

    /** The item the run executes. */
    public static final String ITEM = "Sharding-Item";

    /** The run's {@link ShardingContext#fencingToken() fencing token}. */
    public static final String TOKEN = "Sharding-Fencing-Token";

    /** On a refusal (409), the highest token the service admitted for the job's item. */
    public static final String FENCED_OUT = "Sharding-Fenced-Out";

    private FencingHeaders() {}

    /**
     * Sets the run's headers on a request, for a call made where {@code CurrentRun} is empty, such as on a thread the
     * job's code handed the call to: {@code client.post().uri(url).headers(FencingHeaders.of(context))}.
     */
    public static Consumer<HttpHeaders> of(ShardingContext run) {
        return headers -> addTo(headers, run);
    }

    /**
     * Adds the run's headers unless the request carries any of them already: the caller's own, such as another run's
     * set explicitly, are kept whole rather than mixed with this run's.
     *
     * @return whether this run's headers were added
     */
    static boolean addTo(HttpHeaders headers, ShardingContext run) {
        if (carriesAny(headers)) {
            return false;
        }
        headers.set(JOB, run.jobName());
        headers.set(ITEM, Integer.toString(run.item()));
        headers.set(TOKEN, Long.toString(run.fencingToken()));
        return true;
    }

    /** Whether any of the run's headers is there. */
    static boolean carriesAny(HttpHeaders headers) {
        return headers.containsHeader(JOB) || headers.containsHeader(ITEM) || headers.containsHeader(TOKEN);
    }
}
