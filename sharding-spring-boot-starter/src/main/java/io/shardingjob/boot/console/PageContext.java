package io.shardingjob.boot.console;

import io.shardingjob.boot.console.ConsoleSecurity.CsrfHeader;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What every page of one request is rendered with.
 *
 * @param base the console's path as the browser reaches it: the servlet context path, then the console's path
 * @param writable whether the page offers operations
 * @param operatorRefusal why this user may not operate the jobs though the page offers operations, {@code null} when
 *     they may
 * @param csrf the header every htmx request of the page sends, {@code null} when none is needed
 * @param refresh how often the live parts of the page refresh
 * @param instanceId this instance's id
 * @param connected whether this instance is connected to ZooKeeper
 * @param now the time the page is rendered at, for relative times
 */
record PageContext(
        String base,
        boolean writable,
        @Nullable String operatorRefusal,
        @Nullable CsrfHeader csrf,
        Duration refresh,
        String instanceId,
        boolean connected,
        Instant now) {

    /** The link to a job's page. */
    String jobLink(String job) {
        return base + "/jobs/" + Html.segment(job);
    }

    /** The {@code hx-trigger} of a part that polls. */
    String poll() {
        return "every " + Math.max(100, refresh.toMillis()) + "ms";
    }
}
