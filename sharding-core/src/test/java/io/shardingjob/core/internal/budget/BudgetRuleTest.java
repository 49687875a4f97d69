package io.shardingjob.core.internal.budget;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.CoordinationBudget.Cliff;
import io.shardingjob.core.config.CoordinationBudget.Figures;
import io.shardingjob.core.config.CoordinationBudget.Finding;
import io.shardingjob.core.config.CoordinationBudget.Severity;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.OperatorInputs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BudgetRuleTest {

    private static final int DEFAULT_PACKET = 1_048_575;

    private static Figures figures(
            int items, long fires, int config, int itemParameters, int jobParameter, int packet) {
        return new Figures("orders", items, fires, config, itemParameters, jobParameter, packet, 0);
    }

    private static Map<Cliff, Severity> judged(Figures figures) {
        return BudgetRule.assess(figures).findings().stream()
                .collect(Collectors.toMap(Finding::cliff, Finding::severity));
    }

    @Test
    void aSmallJobIsNearNoLimit() {
        assertThat(BudgetRule.assess(figures(10, 70, 300, 40, 10, DEFAULT_PACKET))
                        .findings())
                .isEmpty();
    }

    @Test
    void listsTheNamesOfAFiresClaimsWithTheirLengths() {
        // 10 x 5 + 90 x 6 + 900 x 7 + 9,000 x 8: the figure LedgerReads' limit of eight fires per read is set from.
        assertThat(BudgetRule.claimNames(10_000)).isEqualTo(78_890);
        assertThat(BudgetRule.claimNames(1)).isEqualTo(5);
        assertThat(BudgetRule.claimNames(0)).isZero();
    }

    /** The seed rows: items per fire against the audits' read, under the default packet and a client's smaller one. */
    @ParameterizedTest(name = "{0} items, jute.maxbuffer {1}: {2}")
    @CsvSource({
        "1,      1048575, NONE",
        "5000,   1048575, NONE",
        "10000,  1048575, WARNING",
        "1000,   393216,  WARNING",
        "10000,  524288,  REFUSAL",
        "10000,  65536,   REFUSAL"
    })
    void judgesTheItemsOfAFireAgainstWhatOneReadCarries(int items, int packet, String expected) {
        Severity severity = judged(figures(items, 0, 300, 0, 0, packet)).get(Cliff.FIRE_READ);
        assertThat(severity == null ? "NONE" : severity.name()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} fires retained: {1}")
    @CsvSource({"70, NONE", "49000, NONE", "50400, WARNING", "61675, WARNING", "61676, REFUSAL", "64800, REFUSAL"})
    void judgesTheFiresRetainedAgainstTheLedgersListing(long fires, String expected) {
        Severity severity = judged(figures(1, fires, 300, 0, 0, DEFAULT_PACKET)).get(Cliff.LEDGER_LISTING);
        assertThat(severity == null ? "NONE" : severity.name()).isEqualTo(expected);
    }

    @Test
    void judgesEachSizeOfTheConfigurationAgainstItsOwnLimit() {
        Map<Cliff, Severity> judged = judged(figures(
                2,
                0,
                OperatorInputs.MAX_CONFIGURATION_BYTES + 1,
                OperatorInputs.MAX_ITEM_PARAMETERS_BYTES * 9 / 10,
                JobConfiguration.MAX_JOB_PARAMETER_BYTES,
                DEFAULT_PACKET));

        assertThat(judged)
                .containsEntry(Cliff.CONFIGURATION, Severity.REFUSAL)
                .containsEntry(Cliff.ITEM_PARAMETERS, Severity.WARNING)
                .containsEntry(Cliff.JOB_PARAMETER, Severity.WARNING);
    }

    @Test
    void aRefusalSaysTheArithmeticAndNamesTheSetting() {
        Finding refusal = BudgetRule.assess(figures(10_000, 0, 300, 0, 0, 65_536))
                .findings()
                .get(0);

        assertThat(refusal.property()).isEqualTo("shardingTotalCount");
        assertThat(refusal.message())
                .contains("8 fires")
                .contains("10,000 claims (78,890 bytes)")
                .contains("8 x 112,882 bytes = 903,056 bytes")
                .contains("of the 65,536 bytes jute.maxbuffer allows")
                .contains("1377 % of the limit, past it");
    }

    @Test
    void refusalsComeBeforeWarnings() {
        CoordinationBudget budget = BudgetRule.assess(
                figures(10_000, 70_000, 300, OperatorInputs.MAX_ITEM_PARAMETERS_BYTES, 0, DEFAULT_PACKET));

        assertThat(budget.findings()).extracting(Finding::severity).isSortedAccordingTo((a, b) -> b.compareTo(a));
        assertThat(budget.refused()).isTrue();
        assertThat(budget.warnings()).extracting(Finding::cliff).contains(Cliff.FIRE_READ, Cliff.ITEM_PARAMETERS);
    }

    @Test
    void countsTheFiresACronMakesDueWithinTheRetentionUpToTheCap() {
        JobConfiguration everySecond =
                JobConfiguration.builder("orders").cron("* * * * * *").build();
        Instant now = Instant.parse("2026-11-30T08:00:00.500Z");

        assertThat(BudgetFigures.firesDue(
                        (configuration, after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1),
                        everySecond,
                        now,
                        Duration.ofSeconds(70),
                        1_000))
                .isEqualTo(70);
        assertThat(BudgetFigures.firesDue(
                        (configuration, after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1),
                        everySecond,
                        now,
                        Duration.ofDays(1),
                        1_000))
                .isEqualTo(1_000);
    }

    @Property
    void aFindingIsARefusalExactlyPastItsLimitAndAWarningFromEightyPercent(
            @ForAll @IntRange(min = 1, max = 10_000) int items,
            @ForAll @LongRange(min = 0, max = 100_000) long fires,
            @ForAll @IntRange(min = 0, max = 600_000) int config,
            @ForAll @IntRange(min = 0, max = 300_000) int itemParameters,
            @ForAll @IntRange(min = 0, max = 20_000) int jobParameter,
            @ForAll @IntRange(min = 65_536, max = 4_194_304) int packet) {
        CoordinationBudget budget =
                BudgetRule.assess(figures(items, fires, config, itemParameters, jobParameter, packet));

        for (Finding finding : budget.findings()) {
            assertThat(finding.value()).isGreaterThanOrEqualTo(finding.limit() * 80 / 100);
            assertThat(finding.severity() == Severity.REFUSAL).isEqualTo(finding.value() > finding.limit());
            assertThat(finding.message())
                    .startsWith(finding.property() + ": ")
                    .contains(String.format(java.util.Locale.ROOT, "%,d bytes", finding.limit()));
        }
        assertThat(budget.findings().stream().map(Finding::cliff).distinct().count())
                .isEqualTo(budget.findings().size());
        assertThat(judged(figures(items, fires, config, itemParameters, jobParameter, packet))
                        .containsKey(Cliff.JOB_PARAMETER))
                .isEqualTo(jobParameter * 100L >= JobConfiguration.MAX_JOB_PARAMETER_BYTES * 80L);
    }

    @Property
    void moreItemsOrFiresOrASmallerPacketNeverMakeAJudgementMilder(
            @ForAll @IntRange(min = 1, max = 9_999) int items,
            @ForAll @LongRange(min = 0, max = 99_999) long fires,
            @ForAll @IntRange(min = 65_537, max = 2_097_152) int packet) {
        Map<Cliff, Severity> before = judged(figures(items, fires, 0, 0, 0, packet));
        Map<Cliff, Severity> after = judged(figures(items + 1, fires + 1, 0, 0, 0, packet - 1));

        before.forEach(
                (cliff, severity) -> assertThat(after.get(cliff)).isNotNull().isGreaterThanOrEqualTo(severity));
    }

    @ParameterizedTest(name = "{0} items -> {1} items under a {2}-byte packet: refused {3}")
    @CsvSource({
        "100, 10000, 1048575, ''",
        "100, 10000, 700000, FIRE_READ",
        "10000, 10000, 700000, ''",
        "10000, 9000, 700000, ''",
        "9000, 10000, 700000, FIRE_READ",
        "10000, 100, 700000, ''",
    })
    void aChangeIsRefusedOnlyForALimitItTakesTheJobFurtherPast(
            int itemsBefore, int itemsAfter, int packet, String refused) {
        CoordinationBudget before = BudgetRule.assess(figures(itemsBefore, 70, 300, 40, 10, packet));
        CoordinationBudget after = BudgetRule.assess(figures(itemsAfter, 70, 300, 40, 10, packet));

        assertThat(BudgetRule.refusalsOfChange(before, after))
                .extracting(finding -> finding.cliff().name())
                .containsExactlyElementsOf(refused.isEmpty() ? List.of() : List.of(refused));
    }

    @Test
    void aNewJobIsRefusedForEveryLimitItIsPast() {
        CoordinationBudget past = BudgetRule.assess(figures(10_000, 70_000, 300, 300_000, 10, 700_000));

        assertThat(BudgetRule.refusalsOfChange(null, past))
                .extracting(Finding::cliff)
                .containsExactly(Cliff.FIRE_READ, Cliff.ITEM_PARAMETERS, Cliff.LEDGER_LISTING);
    }

    @Property
    void aChangeThatMakesNoFigureLargerIsNeverRefused(
            @ForAll @IntRange(min = 1, max = 10_000) int items,
            @ForAll @IntRange(min = 1, max = 10_000) int fewerBy,
            @ForAll @LongRange(min = 0, max = 200_000) long fires,
            @ForAll @IntRange(min = 65_536, max = 4_194_304) int packet) {
        CoordinationBudget before = BudgetRule.assess(figures(items, fires, 300, 40, 10, packet));
        CoordinationBudget after =
                BudgetRule.assess(figures(Math.max(1, items - fewerBy), fires / 2, 300, 40, 10, packet));

        assertThat(BudgetRule.refusalsOfChange(before, after)).isEmpty();
    }
}
