package io.shardingjob.core.sharding.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShardingStrategiesTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "average, AverageAllocationStrategy",
        "odevity, OdevityByNameHashStrategy",
        "rotate, RotateByNameHashStrategy",
        "sticky, StickyStrategy"
    })
    void defaultsKnowTheFourBuiltInStrategiesByName(String name, String simpleClassName) {
        assertThat(ShardingStrategies.defaults().get(name).getClass().getSimpleName())
                .isEqualTo(simpleClassName);
        assertThat(ShardingStrategies.builtIns().get(name).name()).isEqualTo(name);
    }

    @Test
    void builtInsAreExactlyTheFourStrategiesAndAverageIsTheDefault() {
        assertThat(ShardingStrategies.builtIns().names()).containsExactly("average", "odevity", "rotate", "sticky");
        assertThat(ShardingStrategies.builtIns().find(ShardingStrategies.DEFAULT))
                .get()
                .isInstanceOf(AverageAllocationStrategy.class);
    }

    @ParameterizedTest(name = "''{0}'' found: {1}")
    @CsvSource(
            delimiter = '|',
            ignoreLeadingAndTrailingWhitespace = false,
            value = {"sticky|true", "  sticky |true", "Sticky|false", "STICKY|false", "stick|false", "|false"})
    void findsNamesTrimmedButCaseSensitive(String name, boolean found) {
        assertThat(ShardingStrategies.builtIns().find(name).isPresent()).isEqualTo(found);
    }

    @Test
    void rejectsAnUnknownNameListingTheKnownOnes() {
        assertThatThrownBy(() -> ShardingStrategies.builtIns().get("x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown sharding strategy 'x'; known strategies: [average, odevity, rotate, sticky]");
    }

    @Test
    void findsACustomStrategyAddedWithWithAndLeavesTheOriginalUnchanged() {
        ShardingStrategies original = ShardingStrategies.builtIns();

        ShardingStrategies extended = original.with(new Named(" everything-first "));

        assertThat(extended.get("everything-first")).isInstanceOf(Named.class);
        assertThat(extended.names()).containsExactly("average", "everything-first", "odevity", "rotate", "sticky");
        assertThat(original.find("everything-first")).isEmpty();
    }

    @Test
    void refusesANameClaimedByADifferentClass() {
        assertThatThrownBy(() -> ShardingStrategies.builtIns().with(new Named("sticky")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'sticky'")
                .hasMessageContaining(StickyStrategy.class.getName())
                .hasMessageContaining(Named.class.getName());
    }

    @Test
    void acceptsTheSameClassRegisteredTwice() {
        ShardingStrategies registry = ShardingStrategies.builtIns().with(new StickyStrategy());

        assertThat(registry.names()).containsExactly("average", "odevity", "rotate", "sticky");
    }

    @Test
    void refusesABlankName() {
        assertThatThrownBy(() -> ShardingStrategies.builtIns().with(new Named("  ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Named.class.getName());
    }

    @Test
    void discoversStrategiesRegisteredWithServiceLoader() {
        ShardingStrategies defaults = ShardingStrategies.defaults();

        assertThat(defaults.get("reverse")).isInstanceOf(ReverseTestStrategy.class);
        assertThat(defaults.names()).containsExactly("average", "odevity", "reverse", "rotate", "sticky");
    }

    /** A strategy with any name; what it assigns does not matter to the registry. */
    private record Named(String name) implements ShardingStrategy {

        @Override
        public Map<String, List<Integer>> shard(ShardingRequest request) {
            return Map.of();
        }
    }
}
