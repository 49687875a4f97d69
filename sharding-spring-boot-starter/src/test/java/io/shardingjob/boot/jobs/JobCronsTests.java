package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class JobCronsTests {

    private static final ZoneId UTC = ZoneId.of("UTC");

    private final JobCrons crons = new JobCrons();

    @Test
    void aCronIsReadOnceForEveryJobAndEveryUse() {
        assertThat(crons.parse("0/5 * * * * *", UTC)).isSameAs(crons.parse("0/5 * * * * *", UTC));
        assertThat(crons.inForce("a", "0/5 * * * * *", UTC).trigger()).isSameAs(crons.parse("0/5 * * * * *", UTC));
        assertThat(crons.parse("0/5 * * * * *", ZoneId.of("Asia/Shanghai")))
                .isNotSameAs(crons.parse("0/5 * * * * *", UTC));
    }

    @Test
    void anUnreadableCronKeepsTheJobOnTheLastOneItsTriggerReadAndSaysWhy() {
        crons.inForce("settlement", "0 0 * * * *", UTC);

        JobCrons.InForce kept = crons.inForce("settlement", "not a cron", UTC);

        assertThat(kept.trigger().expression()).isEqualTo("0 0 * * * *");
        assertThat(kept.problem()).isNotBlank();
        assertThat(crons.inForce("settlement", "0 30 * * * *", UTC).problem()).isNull();
    }

    @Test
    void anUnreadableCronOfAJobThatNeverHadAReadableOneIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> crons.inForce("new", "not a cron", UTC));
        assertThatIllegalArgumentException().isThrownBy(() -> crons.parse("not a cron", UTC));
    }

    @Test
    void theNextFireIsStrictlyAfterTheInstantGiven() {
        Instant wholeMinute = Instant.now().truncatedTo(ChronoUnit.MINUTES);

        assertThat(crons.nextAfter("a", "0 * * * * *", UTC, wholeMinute)).isEqualTo(wholeMinute.plusSeconds(60));
        assertThat(crons.nextAfter("a", "0 * * * * *", UTC, wholeMinute.minusMillis(1)))
                .isEqualTo(wholeMinute);
    }
}
