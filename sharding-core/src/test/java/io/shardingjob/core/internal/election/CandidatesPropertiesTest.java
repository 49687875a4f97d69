package io.shardingjob.core.internal.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Who leads, over random listings of candidates, in the order ZooKeeper returns them (none in particular). */
class CandidatesPropertiesTest {

    @Property
    void exactlyOneCandidateOfAnyListingLeadsAndItIsTheFirstNumbered(
            @ForAll @Size(min = 1, max = 30) Set<@IntRange(min = 0, max = 1_000_000) Integer> sequences,
            @ForAll long shuffle) {
        List<String> names = listing(sequences, shuffle);

        List<String> leading =
                names.stream().filter(name -> Candidates.leads(name, names)).toList();

        assertThat(leading).containsExactly(name("g" + Collections.min(sequences), Collections.min(sequences)));
    }

    @Property
    void whenTheLeaderGoesTheNextNumberedLeads(
            @ForAll @Size(min = 2, max = 30) Set<@IntRange(min = 0, max = 1_000_000) Integer> sequences,
            @ForAll long shuffle) {
        List<String> names = new ArrayList<>(listing(sequences, shuffle));
        String first = Candidates.leader(names).orElseThrow();

        names.remove(first);

        int next = sequences.stream().sorted().skip(1).findFirst().orElseThrow();
        assertThat(Candidates.leader(names)).hasValue(name("g" + next, next));
    }

    @Property
    void aCandidateNotListedNeverLeads(
            @ForAll @Size(max = 30) Set<@IntRange(min = 1, max = 1_000_000) Integer> sequences, @ForAll long shuffle) {
        List<String> names = listing(sequences, shuffle);

        assertThat(Candidates.leads(name("gone", 0), names)).isFalse();
    }

    @Property
    void anAttemptFindsItsOwnNodeAndNoOther(
            @ForAll @Size(min = 1, max = 30) Set<@IntRange(min = 0, max = 1_000_000) Integer> sequences,
            @ForAll long shuffle) {
        List<String> names = listing(sequences, shuffle);
        int some = sequences.iterator().next();

        assertThat(Candidates.ofAttempt("g" + some, names)).hasValue(name("g" + some, some));
        assertThat(Candidates.ofAttempt("g" + some + "0", names))
                .as("a guid that another one begins with")
                .satisfiesAnyOf(
                        found -> assertThat(found).isEmpty(),
                        found -> assertThat(found.orElseThrow()).startsWith("_c_g" + some + "0-latch-"));
        assertThat(Candidates.ofAttempt("never", names)).isEmpty();
    }

    @Test
    void namesOfAnyOtherFormStandForNobody() {
        List<String> names = List.of("lock-0000000001", name("b", 7), "_c_x-latch-", name("a", 9));

        assertThat(Candidates.leader(names)).hasValue(name("b", 7));
        assertThat(Candidates.leads("lock-0000000001", names)).isFalse();
        assertThat(Candidates.leader(List.of("lock-0000000001"))).isEmpty();
    }

    @Test
    void aCandidateIsNamedAsCuratorsLeaderLatchNamesItsOwn() {
        assertThat(Candidates.prefix("1b2c") + "0000000042").isEqualTo("_c_1b2c-latch-0000000042");
        assertThat(Candidates.leader(List.of(
                        "_c_9f1e4e5a-0c1d-4c57-9d0b-5d5f4a3b2c1d-latch-0000000003",
                        "_c_0a1e4e5a-0c1d-4c57-9d0b-5d5f4a3b2c1d-latch-0000000011")))
                .hasValue("_c_9f1e4e5a-0c1d-4c57-9d0b-5d5f4a3b2c1d-latch-0000000003");
    }

    /** The candidates of these sequences, guid {@code g<sequence>} each, with names of no candidate among them. */
    private static List<String> listing(Set<Integer> sequences, long shuffle) {
        List<String> names = new ArrayList<>();
        sequences.forEach(sequence -> names.add(name("g" + sequence, sequence)));
        names.add("not-a-candidate");
        Collections.shuffle(names, new java.util.Random(shuffle));
        return names;
    }

    private static String name(String guid, int sequence) {
        return Candidates.prefix(guid) + String.format("%010d", sequence);
    }
}
