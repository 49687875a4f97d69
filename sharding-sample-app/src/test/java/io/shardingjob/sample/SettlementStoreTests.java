package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The sample's store refuses a write fenced by a lower token than one it has seen for the region. */
class SettlementStoreTests {

    private final SettlementStore store = new SettlementStore();

    @Test
    void refusesAWriteOfATakenOverRunAfterItsSuccessorWrote() {
        assertThat(store.settle("Shanghai", 4_294_967_463L)).isTrue();
        assertThat(store.settle("Shanghai", 4_294_967_501L))
                .as("the run that took the item over")
                .isTrue();

        assertThat(store.settle("Shanghai", 4_294_967_463L))
                .as("the taken-over run, late")
                .isFalse();
        assertThat(store.settle("Beijing", 4_294_967_463L)).as("another region").isTrue();
    }

    @Test
    void acceptsTheSameTokenAgainAsTheRetriesOfOneRunCarryIt() {
        assertThat(store.settle("Shenzhen", 7L)).isTrue();
        assertThat(store.settle("Shenzhen", 7L)).isTrue();
    }
}
