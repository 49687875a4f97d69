package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Who follows whom, read from the jobs' configurations alone. */
class StoredJobsTest {

    @Test
    void listsTheFollowersOfEachFollowedJobSortedByName() {
        List<JobConfiguration> jobs = List.of(
                job("settle"),
                job("rates"),
                job("export", "settle"),
                job("audit", "settle", "rates"),
                job("report", "rates", "ledgerClose"),
                job("alone"));

        assertThat(StoredJobs.followers(jobs))
                .isEqualTo(Map.of(
                        "settle", List.of("audit", "export"),
                        "rates", List.of("audit", "report"),
                        "ledgerClose", List.of("report")));
    }

    private static JobConfiguration job(String name, String... after) {
        return JobConfiguration.builder(name)
                .cron(after.length == 0 ? "0 0 2 * * *" : JobConfiguration.ON_DEMAND)
                .after(after)
                .build();
    }
}
