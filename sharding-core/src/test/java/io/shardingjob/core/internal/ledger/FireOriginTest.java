package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A fire node's data: its note on the first line, then how the fire was asked for. */
class FireOriginTest {

    @Test
    void aNodeWrittenBeforeManualFiresReadsAsAScheduledFireWithItsNote() {
        for (String note : new String[] {"", LedgerRules.AHEAD, "completing 1a2b", "completed 10.0.0.5@-@4242"}) {
            FireOrigin.NodeData read = FireOrigin.read(note.getBytes(StandardCharsets.UTF_8));

            assertThat(read.note()).isEqualTo(note);
            assertThat(read.origin()).isEqualTo(FireOrigin.SCHEDULED);
        }
        assertThat(FireOrigin.read(null)).isEqualTo(new FireOrigin.NodeData("", FireOrigin.SCHEDULED));
    }

    @Test
    void aScheduledFireIsWrittenAsItsNoteAlone() {
        assertThat(FireOrigin.SCHEDULED.withNote("")).isEmpty();
        assertThat(new String(FireOrigin.SCHEDULED.withNote("completed a"), StandardCharsets.UTF_8))
                .isEqualTo("completed a");
    }

    @Test
    void aManualFireKeepsItsParameterWhateverItHoldsAcrossNoteWrites() {
        String parameter = " region=eu\\north\nline two\tand é";
        FireOrigin origin = FireOrigin.manual(parameter);

        for (String note : new String[] {"", "completing 1a2b", "completed b"}) {
            FireOrigin.NodeData read = FireOrigin.read(origin.withNote(note));

            assertThat(read.note()).isEqualTo(note);
            assertThat(read.origin()).isEqualTo(origin);
            assertThat(read.origin().parameterOr("configured")).isEqualTo(parameter);
        }
    }

    @Test
    void aManualFireWithoutAParameterRunsWithTheConfiguredOne() {
        FireOrigin.NodeData read = FireOrigin.read(FireOrigin.manual(null).withNote(""));

        assertThat(read.origin().manual()).isTrue();
        assertThat(read.origin().parameterOr("configured")).isEqualTo("configured");
        assertThat(FireOrigin.manual("").parameterOr("configured")).isEmpty();
    }

    @Test
    void aFollowersFireKeepsItsUpstreamsAcrossNoteWrites() {
        FireOrigin origin = FireOrigin.after("settle", List.of("settle", "bill"), true, "root")
                .completedBy("bill")
                .abandonedBy("audit");

        FireOrigin.NodeData read = FireOrigin.read(origin.withNote("completing 1f"));

        assertThat(read.note()).isEqualTo("completing 1f");
        assertThat(read.origin()).isEqualTo(origin);
        assertThat(read.origin().after()).containsExactly("settle", "bill");
        assertThat(read.origin().followsUpstream()).isTrue();
        assertThat(read.origin().runsUnderEveryPolicy()).isFalse();
    }
}
