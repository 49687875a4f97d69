package io.shardingjob.sample.e2e;

import io.shardingjob.sample.e2e.ShardingJson.Execution;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The runs of {@code orderSettlement} a copy logged as they began ({@code Settling orders of ...}), with their fire and
 * fencing token: what a frozen copy's output still tells, when its endpoint no longer answers.
 */
final class SettlementRuns {

    private static final Pattern SETTLING = Pattern.compile("Settling orders of (\\S+) \\(item (\\d+) of \\d+, epoch"
            + " \\d+\\) on instance (\\S+) for the fire of (\\S+), fencing token (\\d+)");

    private SettlementRuns() {}

    /** Every run the copy logged as it began, oldest first. */
    static List<Run> of(SampleApp app) {
        Matcher matcher = SETTLING.matcher(app.log());
        List<Run> runs = new ArrayList<>();
        while (matcher.find()) {
            runs.add(new Run(
                    matcher.group(1),
                    Integer.parseInt(matcher.group(2)),
                    matcher.group(3),
                    Instant.parse(matcher.group(4)),
                    Long.parseLong(matcher.group(5))));
        }
        return runs;
    }

    /** The last run of {@code item} the copy logged, for {@code fireTime} or, when null, for any fire. */
    static Optional<Run> last(SampleApp app, int item, @Nullable Instant fireTime) {
        return of(app).stream()
                .filter(run -> run.item() == item
                        && (fireTime == null || run.fireTime().equals(fireTime)))
                .reduce((earlier, later) -> later);
    }

    /** One run of an item as its copy logged it when it began. */
    record Run(String region, int item, String instance, Instant fireTime, long token) {

        /** Whether the execution is of this run's item and fire (on any copy). */
        boolean isOf(Execution execution) {
            return execution.item() == item && execution.fireTime().equals(fireTime);
        }

        @Override
        public String toString() {
            return region + " (item " + item + ", fire " + fireTime + ", token " + token + ")";
        }
    }
}
