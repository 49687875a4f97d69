package io.shardingjob.core.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which nodes' answers a client reckons a node's from: its kin. */
class AnswerSizesTest {

    @Test
    void aNodesKinAreTheSameNodeOfTheOtherJobs() {
        AnswerSizes named = new AnswerSizes("ns");
        assertThat(named.kin("/ns/job-17/leader/election/latch")).isEqualTo("/ns/*/leader/election/latch");
        assertThat(named.kin("/ns/job-17/config")).isEqualTo("/ns/*/config");
        assertThat(named.kin("/ns/job-17"))
                .as("a job's root: its listing is reckoned from its siblings")
                .isNull();
        assertThat(named.kin("/ns/.ledger/job-17/1700000000000/4"))
                .as("the ledger: a fire's claims are reckoned from the job's other fires, its siblings")
                .isNull();
        assertThat(new AnswerSizes(null).kin("/job-17/instances")).isEqualTo("/*/instances");
    }
}
