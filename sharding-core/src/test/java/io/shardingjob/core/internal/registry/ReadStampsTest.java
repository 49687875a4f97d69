package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReadStampsTest {

    private static final String NODE = "/job/config";

    private final ReadStamps stamps = new ReadStamps();

    @Test
    void onlyTheLatestReadOfANodeCountsWhicheverIsAnsweredFirst() {
        long first = stamps.sent(NODE);
        long second = stamps.sent(NODE);

        assertThat(stamps.answered(NODE, second)).isTrue();
        assertThat(stamps.answered(NODE, first)).isFalse();
    }

    @Test
    void theReadsOfOtherNodesDoNotMakeAReadStale() {
        long read = stamps.sent(NODE);
        long other = stamps.sent("/job/leader");

        assertThat(stamps.answered(NODE, read)).isTrue();
        assertThat(stamps.answered("/job/leader", other)).isTrue();
    }

    @Test
    void aDeletionMakesTheReadsSentBeforeItStale() {
        long before = stamps.sent(NODE);
        stamps.deleted(NODE);
        long after = stamps.sent(NODE);

        assertThat(stamps.answered(NODE, before)).isFalse();
        assertThat(stamps.answered(NODE, after)).isTrue();
    }

    @Test
    void aReadSentAfterADeletionWithNoReadOnItsWayCounts() {
        stamps.deleted(NODE);
        long read = stamps.sent(NODE);

        assertThat(stamps.answered(NODE, read)).isTrue();
    }

    @Test
    void stampsFollowTheOrderThingsHappenIn() {
        long loadBegins = stamps.next();
        long read = stamps.sent(NODE);
        long later = stamps.next();

        assertThat(loadBegins).isLessThan(read);
        assertThat(read).isLessThan(later);
    }
}
